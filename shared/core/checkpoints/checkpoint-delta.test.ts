import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyTextEdits,
  decideDelta,
  decideVerbatim,
  normalizeVerbatimDeployment,
  objectMembers,
  parseDeltaCheckpoint,
  parseVerbatimCheckpoint,
  sha256Hex,
  verbatimNeedsNormalizing,
} from './checkpoint-delta.js';
import type { SavedCheckpoint, TextEdit } from './checkpoint-delta.js';
import { ConflictError, InvalidInputError } from '../errors.js';

/** A document made of spans, as the CLI's spanned marshaller writes it (one span per resource). */
function document(resources: string[]): { bytes: Buffer; spans: { start: number; end: number }[] } {
  const head = Buffer.from('{"version":3,"deployment":{"manifest":{"time":"t","magic":"","version":""},"metadata":{},"resources":[');
  const parts: Buffer[] = [head];
  const spans: { start: number; end: number }[] = [];
  let at = head.length;
  resources.forEach((r, i) => {
    const body = Buffer.from(`${i > 0 ? ',' : ''}${JSON.stringify({ urn: `urn:${i}`, custom: true, type: 't', outputs: { text: r } })}`);
    spans.push({ start: at, end: at + body.length });
    parts.push(body);
    at += body.length;
  });
  parts.push(Buffer.from(']}}'));
  return { bytes: Buffer.concat(parts), spans };
}

/** Edits turning `before` into `after` span by span, with byte offsets (what gotextdiff sends). */
function diff(before: ReturnType<typeof document>, after: ReturnType<typeof document>): TextEdit[] {
  const edits: TextEdit[] = [];
  const n = Math.max(before.spans.length, after.spans.length);
  for (let i = 0; i < n; i++) {
    const b = before.spans[i];
    const a = after.spans[i];
    const oldText = b ? before.bytes.subarray(b.start, b.end) : Buffer.alloc(0);
    const newText = a ? after.bytes.subarray(a.start, a.end) : Buffer.alloc(0);
    if (oldText.equals(newText)) continue;
    const at = b ? b.start : before.spans.length ? before.spans[before.spans.length - 1]!.end : before.bytes.length - 3;
    const end = b ? b.end : at;
    edits.push({ Span: { uri: '', start: { line: 1, column: 0, offset: at }, end: { line: 1, column: 0, offset: end } }, NewText: newText.toString('utf8') });
  }
  return edits;
}

const text = fc.string({ unit: 'grapheme', maxLength: 12 });

describe('verbatim checkpoint bodies', () => {
  it('slices the exact bytes of untypedDeployment, escapes and non-ASCII included', () => {
    const inner = '{"version":3,"deployment":{"manifest":{"time":"t"},"resources":[{"urn":"a\\"}]\\\\","x":"\\u003cé日😀>"}] }}';
    const body = Buffer.from(`{ "version" : 3 ,"untypedDeployment":${inner},\n"sequenceNumber":7}`);
    const parsed = parseVerbatimCheckpoint(body);
    expect(parsed.untypedDeployment.toString('utf8')).toBe(inner);
    expect(parsed.sequenceNumber).toBe(7);
    expect(parsed.version).toBe(3);
  });

  it('slices any document byte-exactly', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 8 }), fc.nat(1000), (values, seq) => {
        const doc = document(values).bytes;
        const body = Buffer.concat([Buffer.from(`{"version":3,"untypedDeployment":`), doc, Buffer.from(`,"sequenceNumber":${seq + 1}}`)]);
        expect(parseVerbatimCheckpoint(body).untypedDeployment.equals(doc)).toBe(true);
      }),
    );
  });

  it('refuses bodies without a deployment object or a sequence number', () => {
    expect(() => parseVerbatimCheckpoint(Buffer.from('{"version":3,"sequenceNumber":1}'))).toThrow(InvalidInputError);
    expect(() => parseVerbatimCheckpoint(Buffer.from('{"untypedDeployment":{"deployment":{}}}'))).toThrow(InvalidInputError);
    expect(() => parseVerbatimCheckpoint(Buffer.from('{"untypedDeployment":{"deployment":{}'))).toThrow(InvalidInputError);
  });

  it('lists top-level members', () => {
    const members = objectMembers(Buffer.from('{"a":[1,{"b":"}"}],"c":"x"}'));
    expect([...members.keys()]).toEqual(['a', 'c']);
  });
});

describe('delta checkpoints', () => {
  it('applies byte-offset edits to non-ASCII documents and reproduces the new document', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 10 }), fc.array(fc.option(text), { maxLength: 12 }), (before, changes) => {
        const after = changes.map((c, i) => c ?? before[i] ?? '');
        const a = document(before);
        const b = document(after);
        const result = applyTextEdits(a.bytes, diff(a, b));
        expect(result.equals(b.bytes)).toBe(true);
      }),
    );
  });

  it('would corrupt the document if offsets were applied to a JS string', () => {
    const a = document(['日本語', 'x']);
    const b = document(['日本語', 'y']);
    const edits = diff(a, b);
    const s = a.bytes.toString('utf8');
    const e = edits[0]!;
    const naive = s.slice(0, e.Span.start.offset) + e.NewText + s.slice(e.Span.end.offset);
    expect(naive).not.toBe(b.bytes.toString('utf8'));
    expect(applyTextEdits(a.bytes, edits).equals(b.bytes)).toBe(true);
  });

  it('refuses overlapping and out-of-range edits', () => {
    const doc = Buffer.from('0123456789');
    const edit = (start: number, end: number): TextEdit => ({ Span: { start: { offset: start }, end: { offset: end } }, NewText: 'x' });
    expect(() => applyTextEdits(doc, [edit(0, 5), edit(3, 6)])).toThrow(InvalidInputError);
    expect(() => applyTextEdits(doc, [edit(8, 11)])).toThrow(InvalidInputError);
    expect(applyTextEdits(doc, [edit(5, 6), edit(0, 1)]).toString()).toBe('x1234x6789');
  });

  it('answers a hash mismatch with a 4xx, so the CLI falls back to verbatim', () => {
    const a = document(['é', 'b']);
    const b = document(['é', 'c']);
    const last: SavedCheckpoint = { sequenceNumber: 4, bytes: a.bytes };
    const bad = { version: 3, sequenceNumber: 5, checkpointHash: sha256Hex(a.bytes), deploymentDelta: diff(a, b) };
    let error: unknown;
    try {
      decideDelta(last, bad);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).status).toBeGreaterThanOrEqual(400);
    expect((error as InvalidInputError).status).toBeLessThan(500);
    // The fallback verbatim repeats the sequence number and is stored.
    const verbatim = { version: 3, sequenceNumber: 5, untypedDeployment: b.bytes };
    expect(decideVerbatim(last, verbatim)).toEqual({ action: 'store', bytes: b.bytes });
  });

  it('treats a repeated sequence number as already applied and never re-applies it', () => {
    const a = document(['a', 'b']);
    const b = document(['a', 'bb']);
    const delta = { version: 3, sequenceNumber: 2, checkpointHash: sha256Hex(b.bytes), deploymentDelta: diff(a, b) };
    const first = decideDelta({ sequenceNumber: 1, bytes: a.bytes }, delta);
    expect(first.action).toBe('store');
    const saved: SavedCheckpoint = { sequenceNumber: 2, bytes: (first as { bytes: Buffer }).bytes };
    expect(decideDelta(saved, delta)).toEqual({ action: 'already-applied' });
    expect(decideVerbatim(saved, { version: 3, sequenceNumber: 1, untypedDeployment: a.bytes })).toEqual({ action: 'already-applied' });
  });

  it('refuses a delta with nothing to apply to, or after a gap', () => {
    const a = document(['a']);
    const delta = { version: 3, sequenceNumber: 3, checkpointHash: sha256Hex(a.bytes), deploymentDelta: [] };
    expect(() => decideDelta(undefined, delta)).toThrow(ConflictError);
    expect(() => decideDelta({ sequenceNumber: 1, bytes: a.bytes }, delta)).toThrow(ConflictError);
  });

  it('follows a CLI that switches between verbatim and delta across the cut-off', () => {
    fc.assert(
      fc.property(fc.array(fc.array(text, { maxLength: 30 }), { minLength: 1, maxLength: 12 }), fc.nat(600), (docs, cutoff) => {
        let saved: SavedCheckpoint | undefined;
        let clientLast: ReturnType<typeof document> | undefined;
        let seq = 1;
        for (const values of docs) {
          const next = document(values);
          const useDelta = clientLast !== undefined && clientLast.bytes.length >= cutoff && next.bytes.length >= cutoff;
          let decision;
          if (useDelta) {
            const edits = diff(clientLast!, next);
            const body = Buffer.from(JSON.stringify({ version: 3, checkpointHash: sha256Hex(next.bytes), sequenceNumber: seq, deploymentDelta: edits }));
            decision = decideDelta(saved, parseDeltaCheckpoint(body));
          } else {
            const body = Buffer.concat([Buffer.from('{"version":3,"untypedDeployment":'), next.bytes, Buffer.from(`,"sequenceNumber":${seq}}`)]);
            decision = decideVerbatim(saved, parseVerbatimCheckpoint(body));
          }
          expect(decision.action).toBe('store');
          if (decision.action === 'store') saved = { sequenceNumber: seq, bytes: decision.bytes };
          clientLast = next;
          seq++;
        }
        expect(saved!.bytes.equals(document(docs[docs.length - 1]!).bytes)).toBe(true);
      }),
    );
  });

  it('validates delta bodies', () => {
    expect(() => parseDeltaCheckpoint(Buffer.from('{"sequenceNumber":1,"checkpointHash":"abc"}'))).toThrow(InvalidInputError);
    expect(() =>
      parseDeltaCheckpoint(Buffer.from(JSON.stringify({ sequenceNumber: 1, checkpointHash: 'a'.repeat(64), deploymentDelta: [{ NewText: 1 }] }))),
    ).toThrow(InvalidInputError);
  });
});

describe('export normalisation of verbatim documents', () => {
  it('renames pendingOperations and carries snippets and extensions from the base', () => {
    const raw = Buffer.from(JSON.stringify({ version: 3, deployment: { manifest: {}, metadata: {}, pendingOperations: [{ resource: { urn: 'u' }, type: 'creating' }] } }));
    expect(verbatimNeedsNormalizing(raw)).toBe(true);
    const out = normalizeVerbatimDeployment(raw, { snippets: [{ uuid: 's' }], extensions: { e: { name: 'x' } } });
    expect(out.version).toBe(4);
    expect(out.features).toEqual(['snippets-prototype']);
    expect(out.deployment.pending_operations).toEqual([{ resource: { urn: 'u' }, type: 'creating' }]);
    expect('pendingOperations' in out.deployment).toBe(false);
    expect(out.deployment.snippets).toEqual([{ uuid: 's' }]);
    expect(out.deployment.extensions).toEqual({ e: { name: 'x' } });
  });

  it('leaves ordinary documents alone', () => {
    const raw = Buffer.from('{"version":3,"deployment":{"manifest":{},"metadata":{}}}');
    expect(verbatimNeedsNormalizing(raw)).toBe(false);
    expect(verbatimNeedsNormalizing(raw, { snippets: [] })).toBe(false);
    expect(verbatimNeedsNormalizing(raw, { snippets: [{ uuid: 's' }] })).toBe(true);
  });
});
