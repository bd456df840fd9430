/**
 * The message for an unknown command, as Pulumi words it (pkg/cmd/pulumi/rattler): `unknown command "x" for
 * "stackyard stack"`, up to three "Did you mean this?" commands from anywhere in the tree, and where to read the
 * usage. Loaded only when a command line names no command.
 */
import type { Command } from 'commander';
import { declareTree } from './lazy-tree.js';
import { commandPath } from './stackyard-command.js';

const MAX_SUGGESTIONS = 3;

/** Words that mean the same in a command name (Pulumi's table): `webhook create` finds `webhook new`. */
const SYNONYMS: Record<string, string> = {
  ls: 'list',
  rm: 'remove',
  del: 'remove',
  delete: 'remove',
  create: 'new',
  add: 'new',
  show: 'get',
  display: 'get',
  upgrade: 'update',
};

/** A name as words to match: lower case, split at hyphens, synonyms folded, a plural `s` dropped. */
function normalize(name: string): string[] {
  return name
    .toLowerCase()
    .split('-')
    .filter((part) => part !== '')
    .map((part) => {
      if (SYNONYMS[part]) return SYNONYMS[part]!;
      const singular = part.length > 3 && part.endsWith('s') ? part.slice(0, -1) : part;
      return SYNONYMS[singular] ?? singular;
    });
}

/** Insertions, deletions and substitutions from `a` to `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** 3 for the same word, 2 for a near miss (one edit under six letters, two from six), 1 for a prefix of three or more. */
function matchValue(word: string, names: string[]): number {
  let best = 0;
  for (const name of names) {
    const limit = Math.max(word.length, name.length) < 6 ? 1 : 2;
    let value = 0;
    if (word === name) value = 3;
    else if (editDistance(word, name) <= limit) value = 2;
    else if ((word.length >= 3 && name.startsWith(word)) || (name.length >= 3 && word.startsWith(name))) value = 1;
    best = Math.max(best, value);
  }
  return best;
}

interface Candidate {
  path: string;
  depth: number;
  /** Per word of the path, the names that word answers to. */
  slots: string[][];
}

/** The commands from below the program down to `command`. */
function chain(command: Command): Command[] {
  const commands: Command[] = [];
  for (let current: Command | null = command; current?.parent; current = current.parent) commands.unshift(current);
  return commands;
}

function candidate(command: Command): Candidate {
  const slots: string[][] = [];
  for (const link of chain(command)) {
    const parts = normalize(link.name());
    if (parts.length !== 1) {
      for (const part of parts) slots.push([part]);
      continue;
    }
    const names = [...parts];
    for (const alias of link.aliases()) {
      const alt = normalize(alias);
      if (alt.length === 1 && !names.includes(alt[0]!)) names.push(alt[0]!);
    }
    slots.push(names);
  }
  return { path: commandPath(command), depth: slots.length, slots };
}

function isHidden(command: Command): boolean {
  return (command as unknown as { _hidden?: boolean })._hidden === true;
}

/** Every visible command under `command`, depth first. */
function candidates(command: Command, into: Candidate[] = []): Candidate[] {
  for (const sub of command.commands) {
    if (isHidden(sub) || sub.name() === 'help') continue;
    into.push(candidate(sub));
    candidates(sub, into);
  }
  return into;
}

interface Typed {
  word: string;
  /** The unknown word itself: a candidate must match it to be suggested. */
  failing: boolean;
}

/** Each typed word takes the unused slot it matches best; the score is the matches less the slots left unmatched. */
function score(typed: Typed[], cand: Candidate): { score: number; sum: number; failingMatched: boolean } {
  const used = cand.slots.map(() => false);
  let sum = 0;
  let failingMatched = false;
  for (const { word, failing } of typed) {
    let best = 0;
    let at = -1;
    cand.slots.forEach((names, i) => {
      if (used[i]) return;
      const value = matchValue(word, names);
      if (value > best) [best, at] = [value, i];
    });
    if (at < 0) continue;
    used[at] = true;
    sum += best;
    if (failing) failingMatched = true;
  }
  return { score: sum - used.filter((u) => !u).length, sum, failingMatched };
}

function rank(typed: Typed[], cands: Candidate[]): string[] {
  const eligible = cands
    .map((cand) => ({ cand, ...score(typed, cand) }))
    .filter((e) => e.failingMatched && e.score >= 2)
    .sort((a, b) => b.score - a.score || b.sum - a.sum || a.cand.depth - b.cand.depth || (a.cand.path < b.cand.path ? -1 : a.cand.path > b.cand.path ? 1 : 0));
  const out: string[] = [];
  for (const e of eligible) {
    if (out.length === MAX_SUGGESTIONS || e.score < eligible[0]!.score - 2) break;
    out.push(e.cand.path);
  }
  return out;
}

/** Up to three command paths close to what was typed: under `command` first, else anywhere in the tree. */
export function suggestCommands(command: Command, words: string[]): string[] {
  let root = command;
  while (root.parent) root = root.parent;
  declareTree(root);
  const typed: Typed[] = [
    ...chain(command).flatMap((link) => normalize(link.name()).map((word) => ({ word, failing: false }))),
    ...words.flatMap((w, i) => normalize(w).map((word) => ({ word, failing: i === 0 }))),
  ];
  if (typed.length === 0) return [];
  if (command.parent) {
    const near = rank(typed, candidates(command));
    if (near.length > 0) return near;
  }
  return rank(typed, candidates(root));
}

/** The whole message, without the `error: ` every error line starts with. */
export function unknownCommandMessage(command: Command, words: string[]): string {
  const path = commandPath(command);
  const suggestions = suggestCommands(command, words);
  const lines = [`unknown command "${words[0]}" for "${path}"`];
  // Pulumi's layout: a blank line before and after the suggestions, none without them.
  if (suggestions.length > 0) lines.push('', 'Did you mean this?', ...suggestions.map((s) => `\t${s}`), '');
  lines.push(`Run '${path} --help' for usage.`);
  return lines.join('\n');
}
