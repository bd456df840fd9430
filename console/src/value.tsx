import { useState } from 'preact/hooks';
import { masked } from './secrets.js';

/**
 * Values longer than this many characters are cut until asked for: a dynamic provider's serialized `__provider`
 * runs to thousands and is in both the inputs and the outputs.
 */
export const COLLAPSE_AT = 200;

/** A state value with every secret masked; a long one shows its first `COLLAPSE_AT` characters and a button for all. */
export function Value({ value }: { value: unknown }) {
  const [expanded, setExpanded] = useState(false);
  const shown = masked(value);
  const text = typeof shown === 'string' ? shown : JSON.stringify(shown);
  // Counted and cut by code point, so a cut never splits a character in two.
  const characters = text === undefined ? [] : [...text];
  if (characters.length <= COLLAPSE_AT) return <code class="value">{text}</code>;
  return (
    <span class="long-value">
      {/* Cut, it reads as one run of text; whole, with its own line breaks (a provider's source, a document). */}
      <code class={expanded ? 'value whole' : 'value'}>{expanded ? text : `${characters.slice(0, COLLAPSE_AT).join('')}…`}</code>{' '}
      <button type="button" class="link" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
        {expanded ? 'Show less' : `Show all (${characters.length.toLocaleString('en')} characters)`}
      </button>
    </span>
  );
}
