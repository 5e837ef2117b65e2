// Requests written byte for byte on a socket: paths, queries and headers that fetch and Node's
// http client refuse to send (raw non-ASCII, bad percent-encoding, control characters).
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header lines as received (names lower-cased). */
  headers: Record<string, string>;
  /** Everything received, status line, headers and body, as latin1 text. */
  raw: string;
  text: string;
  body: unknown;
}

/**
 * Writes `head` (request line and headers, without the blank line) with `Connection: close`, the
 * blank line and the body, and reads the answer until the server closes the connection.
 */
export function rawRequest(
  base: string,
  head: Buffer | string,
  body: Buffer | string = '',
): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  const payload = Buffer.concat([
    Buffer.isBuffer(head) ? head : Buffer.from(head, 'latin1'),
    Buffer.from('\r\nConnection: close\r\n\r\n', 'latin1'),
    Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
  ]);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(payload));
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `no complete answer within 10 s to ${JSON.stringify(payload.toString('latin1').slice(0, 200))}`,
        ),
      );
    }, 10_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may close while the request is still being written (it refused the request line).
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const received = Buffer.concat(chunks);
      const split = received.indexOf('\r\n\r\n');
      const headText = received.subarray(0, split < 0 ? received.length : split).toString('latin1');
      const [statusLine = '', ...lines] = headText.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const text = split < 0 ? '' : received.subarray(split + 4).toString('utf8');
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        // not JSON: leave the text
      }
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
        headers,
        raw: received.toString('latin1'),
        text,
        body: parsed,
      });
    });
  });
}
