/**
 * `env run`'s output filter (ESC's redactor): each line the command writes has every secret of at least three
 * characters replaced by `[secret]` (shorter ones would blank out too much to be useful); a last line without a
 * newline is filtered when the stream ends.
 */
import { Writable } from 'node:stream';

export function redactingWriter(out: NodeJS.WritableStream, secrets: string[]): Writable {
  const filtered = [...new Set(secrets.filter((s) => s.length >= 3))].sort((a, b) => b.length - a.length);
  const redact = (line: string) => filtered.reduce((text, secret) => text.split(secret).join('[secret]'), line);
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString('utf8');
      const end = pending.lastIndexOf('\n');
      if (end >= 0) {
        out.write(redact(pending.slice(0, end + 1)));
        pending = pending.slice(end + 1);
      }
      done();
    },
    final(done) {
      if (pending) out.write(redact(pending));
      done();
    },
  });
}
