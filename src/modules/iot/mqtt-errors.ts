// A connection problem as the source's last_error says it: short, in plain words, and built from
// error codes rather than from error messages, so no secret can slip into it.

const CONNACK_REFUSALS: Record<number, string> = {
  1: 'the broker does not speak MQTT 3.1.1',
  2: 'the broker refused the client id',
  3: 'the broker is unavailable',
  4: 'not authorised: the broker refused the user name or password',
  5: 'not authorised: the broker refused this client',
  134: 'not authorised: the broker refused the user name or password',
  135: 'not authorised: the broker refused this client',
  138: 'not authorised: the broker banned this client',
};

const SOCKET_CODES: Record<string, string> = {
  ECONNRESET: 'the broker reset the connection',
  EPIPE: 'the broker closed the connection',
  EHOSTUNREACH: 'the broker host is unreachable',
  ENETUNREACH: 'the broker network is unreachable',
  ETIMEDOUT: 'the connection timed out',
};

export function describeMqttError(
  err: unknown,
  broker: { hostname: string; port: number },
  password?: string,
): string {
  const e = err as { code?: unknown; message?: unknown };
  const where = `${broker.hostname}:${broker.port}`;
  let text: string;
  if (typeof e.code === 'number') {
    text = CONNACK_REFUSALS[e.code] ?? `the broker refused the connection (code ${e.code})`;
  } else if (e.code === 'EFURROW_REFUSED_ADDRESS' && typeof e.message === 'string') {
    // "refused to connect to ADDRESS: not a public address (REASON)": built by the address guard.
    text = e.message;
  } else if (e.code === 'EFURROW_NO_LEASE') {
    text = 'not connected: this worker no longer holds the source';
  } else if (e.code === 'ECONNREFUSED') {
    text = `connection refused by ${where}`;
  } else if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') {
    text = `the broker host ${broker.hostname} does not resolve`;
  } else if (typeof e.code === 'string' && SOCKET_CODES[e.code]) {
    text = SOCKET_CODES[e.code]!;
  } else if (typeof e.code === 'string' && /CERT|TLS|SSL|SELF_SIGNED|VERIFY/.test(e.code)) {
    text = `TLS handshake with ${where} failed (${e.code})`;
  } else if (e.message === 'connack timeout') {
    text = `no answer from ${where} within the connect timeout`;
  } else if (e.message === 'Keepalive timeout') {
    text = 'the broker stopped answering (keepalive timeout)';
  } else {
    text = `connection to ${where} failed${typeof e.code === 'string' ? ` (${e.code})` : ''}`;
  }
  if (password) text = text.split(password).join('***');
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
