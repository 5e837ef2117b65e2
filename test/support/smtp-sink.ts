// A real SMTP server for tests, in-process (the smtp-server package) on a free port of 127.0.0.1:
// plain connection (no STARTTLS), optional login, every accepted message kept and decoded enough to
// assert on (To, Subject, the text), and scriptable refusals (a 4xx or 5xx answer to the next messages).
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope's recipients. */
  rcptTo: string[];
  mailFrom: string;
  headers: Record<string, string>;
  subject: string;
  text: string;
  raw: string;
}

export interface SmtpSink {
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** How many DATA commands were answered (accepted or refused). */
  attempts: number;
  /** How many logins were tried (accepted or refused). */
  logins: number;
  /** The next `count` messages are refused with this code and text. */
  refuseNext(count: number, code: number, message?: string): void;
  /** Recipients refused at RCPT TO with 550. */
  rejectRecipient(address: string): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpSink(options: { user?: string; password?: string } = {}): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const rejected = new Set<string>();
  let refusals: { count: number; code: number; message: string } | undefined;
  const sink = { attempts: 0, logins: 0 } as SmtpSink;
  const settings: SMTPServerOptions = {
    secure: false,
    disabledCommands: options.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    allowInsecureAuth: true,
    authOptional: !options.user,
    logger: false,
    onAuth(auth, _session, callback) {
      sink.logins += 1;
      if (auth.username === options.user && auth.password === options.password) {
        callback(null, { user: auth.username });
      } else {
        callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      }
    },
    onRcptTo(address, _session, callback) {
      if (rejected.has(address.address.toLowerCase())) {
        callback(Object.assign(new Error('No such user here'), { responseCode: 550 }));
      } else {
        callback();
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        sink.attempts += 1;
        if (refusals && refusals.count > 0) {
          refusals.count -= 1;
          callback(Object.assign(new Error(refusals.message), { responseCode: refusals.code }));
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({
          ...decodeMessage(raw),
          raw,
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        });
        callback();
      });
    },
  };
  const server = new SMTPServer(settings);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  server.on('error', () => {});
  const port = (server.server.address() as AddressInfo).port;
  const credentials = options.user
    ? `${encodeURIComponent(options.user)}:${encodeURIComponent(options.password ?? '')}@`
    : '';
  return Object.assign(sink, {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    port,
    mails,
    refuseNext(count: number, code: number, message = 'Try again later') {
      refusals = { count, code, message };
    },
    rejectRecipient(address: string) {
      rejected.add(address.toLowerCase());
    },
    async waitFor(count: number, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (mails.length < count) {
        if (Date.now() > until) throw new Error(`expected ${count} mails, got ${mails.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return mails;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Headers (unfolded, names lower-cased, encoded words decoded) and the text part, decoded. */
export function decodeMessage(raw: string): {
  headers: Record<string, string>;
  subject: string;
  text: string;
} {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  let text: string;
  if (encoding === 'base64') text = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  else if (encoding === 'quoted-printable') text = decodeQuotedPrintable(body.replace(/=\r\n/g, ''));
  else text = body;
  return { headers, subject: headers.subject ?? '', text: text.replace(/\r\n/g, '\n') };
}

function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([bBqQ])\?([^?]*)\?=/g, (_all, _charset: string, kind: string, data: string) =>
      kind.toLowerCase() === 'b'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
