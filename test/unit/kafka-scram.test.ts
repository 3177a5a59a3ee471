import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scramCredential } from '../../security/scram.js';
import { INVALID_CREDENTIALS, ScramFailure, ScramServer } from '../../workloads/local/kafka/scram.js';

const credential = scramCredential('right-password');
const lookup = (name: string) => (name === 'alice' ? credential : undefined);

/** The client's side of SCRAM-SHA-512, with a hook to shape the final nonce as a client does. */
function clientFinal(
  serverFirst: string,
  clientFirstBare: string,
  password: string,
  nonceOf = (nonce: string) => nonce,
): string {
  const fields = Object.fromEntries(serverFirst.split(',').map((part) => [part[0], part.slice(2)]));
  const salted = pbkdf2Sync(password, Buffer.from(fields.s!, 'base64'), Number(fields.i), 64, 'sha512');
  const clientKey = createHmac('sha512', salted).update('Client Key').digest();
  const storedKey = createHash('sha512').update(clientKey).digest();
  const withoutProof = `c=biws,r=${nonceOf(fields.r!)}`;
  const signature = createHmac('sha512', storedKey)
    .update(`${clientFirstBare},${serverFirst},${withoutProof}`)
    .digest();
  const proof = Buffer.from(clientKey.map((byte, i) => byte ^ signature[i]!));
  return `${withoutProof},p=${proof.toString('base64')}`;
}

describe('the SCRAM-SHA-512 exchange', () => {
  it('derives a credential with at least 4096 iterations and no password in it', () => {
    expect(scramCredential('x', 10).iterations).toBe(4096);
    expect(JSON.stringify(credential)).not.toContain('right-password');
  });

  it.each([
    ['the RFC form', 'right-password', (nonce: string) => nonce, true],
    [
      'librdkafka 2.0 (more in front of the server nonce)',
      'right-password',
      (nonce: string) => `extra${nonce}`,
      true,
    ],
    ['a wrong password', 'wrong-password', (nonce: string) => nonce, false],
    [
      'a nonce that does not end with the server nonce',
      'right-password',
      (nonce: string) => `${nonce}x`,
      false,
    ],
  ])('%s: authenticated %s', (_case, password, nonceOf, succeeds) => {
    const server = new ScramServer(lookup, () => 'SERVERNONCE');
    const clientFirstBare = 'n=alice,r=clientnonce';
    const serverFirst = server.respond(Buffer.from(`n,,${clientFirstBare}`)).toString();
    expect(serverFirst).toBe(`r=clientnonceSERVERNONCE,s=${credential.salt},i=4096`);
    const final = Buffer.from(clientFinal(serverFirst, clientFirstBare, password, nonceOf));
    if (succeeds) {
      expect(server.respond(final).toString()).toMatch(/^v=/);
      expect(server.username).toBe('alice');
    } else {
      expect(() => server.respond(final)).toThrow(ScramFailure);
      expect(server.username).toBeUndefined();
    }
  });

  it.each([
    ['an unknown user', 'n,,n=mallory,r=abc', INVALID_CREDENTIALS],
    ['a message without a nonce', 'n,,n=alice', 'Invalid SCRAM client first message'],
    ['channel binding', 'p=tls-unique,,n=alice,r=abc', 'Invalid SCRAM client first message'],
  ])('refuses %s in the first message', (_case, message, reason) => {
    expect(() => new ScramServer(lookup).respond(Buffer.from(message))).toThrow(reason);
  });

  it('refuses messages after the exchange finished', () => {
    const server = new ScramServer(lookup);
    expect(() => server.respond(Buffer.from('n,,n=mallory,r=abc'))).toThrow(ScramFailure);
    expect(() => server.respond(Buffer.from('n,,n=alice,r=abc'))).toThrow(ScramFailure);
  });
});
