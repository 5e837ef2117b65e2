// The shared test vectors of the design notes (copied into test/vectors/).
import { readFileSync } from 'node:fs';

const read = (name: string) =>
  JSON.parse(readFileSync(new URL(`../vectors/${name}`, import.meta.url), 'utf8'));

export const addressVectors = read('addresses.json') as {
  reject: { url: string; why: string }[];
  accept: string[];
};

export const signatureVector = read('signature.json') as {
  secret: string;
  timestamp: string;
  id: string;
  body: string;
  expected_headers: Record<string, string>;
};
