// argon2id password hashes (OWASP's recommended parameters: 19 MiB, 2 passes, 1 lane).
import { type Algorithm, hash, verify } from '@node-rs/argon2';

// Algorithm is an ambient const enum; 2 is its Argon2id member.
const ARGON2ID = 2 as Algorithm.Argon2id;

const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 };

/**
 * A hash of a password nobody has, with OPTIONS: verifying against it costs what a real check
 * costs. A constant, so the first login does not hash it beside its own verification (two
 * 19 MiB blocks at once).
 */
export const DUMMY_HASH =
  '$argon2id$v=19$m=19456,t=2,p=1$hsrisYVbHfS7YJSnJJdlnw$vIZr6D/FFq5siAaMvMRBxiWTVsFoYBaYiDBFSoYMH5c';

/**
 * Each hash or verification takes 19 MiB of memory while it runs; at most this many run at once
 * (the others wait their turn), so a burst of logins cannot take 19 MiB per thread of the pool.
 */
export const MAX_CONCURRENT_HASHES = 2;

let running = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    // The slot passes to the next in line, or is given back.
    if (next) next();
    else running--;
  }
}

export function hashPassword(password: string): Promise<string> {
  return inTurn(() => hash(password, OPTIONS));
}

/**
 * Verifies a password; with no stored hash it verifies against a dummy one, so an unknown
 * tenant or user costs the same time as a wrong password.
 */
export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  const target = storedHash ?? DUMMY_HASH;
  let ok = false;
  try {
    ok = await inTurn(() => verify(target, password));
  } catch {
    ok = false;
  }
  return ok && storedHash !== undefined;
}
