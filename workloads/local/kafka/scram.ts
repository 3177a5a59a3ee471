import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ScramCredential } from '../../runtime.js';

/**
 * SCRAM-SHA-512 (RFC 5802) as Kafka's ScramSaslServer does it: the broker keeps only the salt,
 * StoredKey and ServerKey; the client-final nonce must END WITH the server-first nonce (librdkafka
 * 2.0 puts more in front, so the strict equality of the RFC would refuse it).
 */

export const SCRAM_MECHANISM = 'SCRAM-SHA-512';

const hmac = (key: Buffer, text: string | Buffer) => createHmac('sha512', key).update(text).digest();
const sha512 = (data: Buffer) => createHash('sha512').update(data).digest();

/** Why an exchange failed; the message is for the client and never holds a secret. */
export class ScramFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScramFailure';
  }
}

/** Kafka's message on a wrong password or unknown user (the two are not told apart). */
export const INVALID_CREDENTIALS =
  'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512';

function attributes(message: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of message.split(',')) {
    const equals = part.indexOf('=');
    if (equals === 1) fields.set(part[0]!, part.slice(2));
  }
  return fields;
}

function unescapeName(name: string): string {
  return name.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

type ScramState =
  | { step: 'first' }
  | {
      step: 'final';
      username: string;
      credential: ScramCredential;
      clientFirstBare: string;
      serverFirst: string;
      nonce: string;
    }
  | { step: 'done'; username: string }
  | { step: 'failed' };

/**
 * One connection's SCRAM exchange: `respond` takes each client message and returns the server's,
 * or throws `ScramFailure`; after the client-final message, `username` is the authenticated user.
 */
export class ScramServer {
  private state: ScramState = { step: 'first' };

  constructor(
    private readonly lookup: (username: string) => ScramCredential | undefined,
    private readonly serverNonce: () => string = () => randomBytes(24).toString('base64url'),
  ) {}

  get username(): string | undefined {
    return this.state.step === 'done' ? this.state.username : undefined;
  }

  get done(): boolean {
    return this.state.step === 'done';
  }

  respond(message: Buffer): Buffer {
    try {
      return Buffer.from(this.advance(message.toString('utf8')), 'utf8');
    } catch (error) {
      this.state = { step: 'failed' };
      throw error;
    }
  }

  private advance(text: string): string {
    const state = this.state;
    if (state.step === 'first') return this.first(text);
    if (state.step === 'final') return this.final(text, state);
    throw new ScramFailure('SCRAM exchange already finished');
  }

  private first(text: string): string {
    // gs2 header: "n,," or "y,," (no channel binding); "p=" asks for binding, which Kafka refuses.
    const match = /^([ny]),(a=[^,]*)?,(.*)$/s.exec(text);
    if (!match) throw new ScramFailure('Invalid SCRAM client first message');
    const clientFirstBare = match[3]!;
    const fields = attributes(clientFirstBare);
    const name = fields.get('n');
    const clientNonce = fields.get('r');
    if (name === undefined || !clientNonce) throw new ScramFailure('Invalid SCRAM client first message');
    const username = unescapeName(name);
    const credential = this.lookup(username);
    if (!credential) throw new ScramFailure(INVALID_CREDENTIALS);
    const nonce = clientNonce + this.serverNonce();
    const serverFirst = `r=${nonce},s=${credential.salt},i=${credential.iterations}`;
    this.state = { step: 'final', username, credential, clientFirstBare, serverFirst, nonce };
    return serverFirst;
  }

  private final(text: string, state: Extract<ScramState, { step: 'final' }>): string {
    const proofAt = text.lastIndexOf(',p=');
    if (proofAt < 0) throw new ScramFailure('Invalid SCRAM client final message');
    const withoutProof = text.slice(0, proofAt);
    const fields = attributes(withoutProof);
    const nonce = fields.get('r') ?? '';
    if (!nonce.endsWith(state.nonce))
      throw new ScramFailure('Invalid client nonce in the final client message.');
    const proof = Buffer.from(text.slice(proofAt + 3), 'base64');
    const authMessage = `${state.clientFirstBare},${state.serverFirst},${withoutProof}`;
    const storedKey = Buffer.from(state.credential.storedKey, 'base64');
    const signature = hmac(storedKey, authMessage);
    if (proof.length !== signature.length) throw new ScramFailure(INVALID_CREDENTIALS);
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i]! ^ signature[i]!;
    if (!timingSafeEqual(sha512(clientKey), storedKey)) throw new ScramFailure(INVALID_CREDENTIALS);
    const serverSignature = hmac(Buffer.from(state.credential.serverKey, 'base64'), authMessage);
    this.state = { step: 'done', username: state.username };
    return `v=${serverSignature.toString('base64')}`;
  }
}
