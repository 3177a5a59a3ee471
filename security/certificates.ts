import {
  createHash,
  generateKeyPairSync,
  randomBytes,
  sign,
  X509Certificate,
  createPrivateKey,
  type KeyObject,
} from 'node:crypto';
import { isIP } from 'node:net';

/**
 * X.509 certificates built from DER by hand (node:crypto verifies and signs but cannot issue):
 * self-signed serving certificates, and an authority that issues certificates for servers the
 * platform runs (the streaming brokers), so clients verify the chain rather than a pinned leaf.
 */

/** A PEM private key (ECDSA P-256) and its PEM certificate. */
export interface CertificateAndKey {
  key: string;
  cert: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Certificates start an hour back, so a client whose clock runs a little behind accepts them. */
const BACKDATE_MS = 60 * 60 * 1000;

function der(tag: number, content: Buffer): Buffer {
  const length = content.length;
  let header: Buffer;
  if (length < 0x80) header = Buffer.from([tag, length]);
  else {
    const bytes: number[] = [];
    for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
    header = Buffer.from([tag, 0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([header, content]);
}

const sequence = (...items: Buffer[]) => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => der(0x31, Buffer.concat(items));
const explicit = (tag: number, content: Buffer) => der(0xa0 + tag, content);
const octets = (content: Buffer) => der(0x04, content);
const bitString = (content: Buffer) => der(0x03, Buffer.concat([Buffer.from([0]), content]));
const utf8 = (text: string) => der(0x0c, Buffer.from(text, 'utf8'));
const TRUE = Buffer.from([0x01, 0x01, 0xff]);

/**
 * A non-negative DER INTEGER: minimal, so leading zero bytes go (OpenSSL refuses a padded one:
 * a random serial starts with 0x00 one time in 256), and a zero goes in front of a high bit.
 */
function integer(value: Buffer): Buffer {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start += 1;
  const minimal = value.subarray(start);
  const positive = (minimal[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal;
  return der(0x02, positive);
}

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const part of rest) {
    const chunk = [part & 0x7f];
    for (let value = part >> 7; value > 0; value >>= 7) chunk.unshift((value & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

function time(date: Date): Buffer {
  const iso = date
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  return date.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(iso.slice(2))) : der(0x18, Buffer.from(iso));
}

function ipBytes(address: string): Buffer {
  if (isIP(address) === 4) return Buffer.from(address.split('.').map(Number));
  const [head = '', tail = ''] = address.split('::');
  const groups = (text: string) => (text === '' ? [] : text.split(':'));
  const fill = 8 - groups(head).length - groups(tail).length;
  const all = [
    ...groups(head),
    ...Array<string>(address.includes('::') ? fill : 0).fill('0'),
    ...groups(tail),
  ];
  return Buffer.concat(all.map((group) => Buffer.from(group.padStart(4, '0'), 'hex')));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [TRUE] : []), octets(value));
}

function subjectAltNames(hosts: readonly string[]): Buffer {
  return sequence(
    ...hosts.map((host) => (isIP(host) ? der(0x87, ipBytes(host)) : der(0x82, Buffer.from(host, 'ascii')))),
  );
}

const distinguishedName = (commonName: string) => sequence(set(sequence(oid('2.5.4.3'), utf8(commonName))));
const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

function keyIdentifier(spki: Buffer): Buffer {
  return createHash('sha1').update(spki).digest();
}

interface CertificateFields {
  subject: string;
  issuer: string;
  subjectPublicKey: Buffer;
  signingKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  extensions: Buffer[];
}

function signedCertificate(fields: CertificateFields): string {
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(randomBytes(16)),
    ECDSA_WITH_SHA256,
    distinguishedName(fields.issuer),
    sequence(time(fields.notBefore), time(fields.notAfter)),
    distinguishedName(fields.subject),
    fields.subjectPublicKey,
    explicit(3, sequence(...fields.extensions)),
  );
  const signature = sign('sha256', tbs, fields.signingKey);
  const certificate = sequence(tbs, ECDSA_WITH_SHA256, bitString(signature));
  const body = certificate.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE-----\n${body.trimEnd()}\n-----END CERTIFICATE-----\n`;
}

function newKeyPair(): { privateKey: KeyObject; spki: Buffer; pem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey,
    spki: publicKey.export({ type: 'spki', format: 'der' }),
    pem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  };
}

/**
 * A self-signed ECDSA P-256 certificate for `hosts` (DNS names and IP addresses), valid from `now`
 * for `days`; it is its own authority, so clients trust it directly.
 */
export function createSelfSignedCertificate(
  commonName: string,
  hosts: readonly string[],
  days: number,
  now: Date = new Date(),
): CertificateAndKey {
  const pair = newKeyPair();
  const cert = signedCertificate({
    subject: commonName,
    issuer: commonName,
    subjectPublicKey: pair.spki,
    signingKey: pair.privateKey,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + days * DAY_MS),
    extensions: [
      extension('2.5.29.19', true, sequence(TRUE)),
      // digitalSignature and keyCertSign
      extension('2.5.29.15', true, der(0x03, Buffer.from([0x02, 0x84]))),
      extension('2.5.29.37', false, sequence(oid(SERVER_AUTH))),
      extension('2.5.29.17', false, subjectAltNames(hosts)),
      extension('2.5.29.14', false, octets(keyIdentifier(pair.spki))),
    ],
  });
  return { key: pair.pem, cert };
}

/** A certificate authority (ECDSA P-256, ten years) that signs certificates only. */
export function createAuthority(
  commonName = 'cloudplane streaming authority',
  now: Date = new Date(),
): CertificateAndKey {
  const pair = newKeyPair();
  const cert = signedCertificate({
    subject: commonName,
    issuer: commonName,
    subjectPublicKey: pair.spki,
    signingKey: pair.privateKey,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + 3650 * DAY_MS),
    extensions: [
      extension('2.5.29.19', true, sequence(TRUE)),
      // keyCertSign and cRLSign
      extension('2.5.29.15', true, der(0x03, Buffer.from([0x01, 0x06]))),
      extension('2.5.29.14', false, octets(keyIdentifier(pair.spki))),
    ],
  });
  return { key: pair.pem, cert };
}

/** A server certificate signed by `authority`, naming `sans` (DNS names or IP addresses). */
export function issueCertificate(
  authority: CertificateAndKey,
  request: { commonName: string; sans: readonly string[]; days: number },
  now: Date = new Date(),
): CertificateAndKey {
  const pair = newKeyPair();
  const issuer = new X509Certificate(authority.cert);
  const issuerName = /CN=([^\n]*)/.exec(issuer.subject)?.[1] ?? 'cloudplane authority';
  const issuerSpki = issuer.publicKey.export({ type: 'spki', format: 'der' });
  const cert = signedCertificate({
    subject: request.commonName,
    issuer: issuerName,
    subjectPublicKey: pair.spki,
    signingKey: createPrivateKey(authority.key),
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + request.days * DAY_MS),
    extensions: [
      extension('2.5.29.19', true, sequence()),
      // digitalSignature
      extension('2.5.29.15', true, der(0x03, Buffer.from([0x07, 0x80]))),
      extension('2.5.29.37', false, sequence(oid(SERVER_AUTH))),
      extension('2.5.29.17', false, subjectAltNames(request.sans)),
      extension('2.5.29.14', false, octets(keyIdentifier(pair.spki))),
      // authorityKeyIdentifier [0] keyIdentifier
      extension('2.5.29.35', false, sequence(der(0x80, keyIdentifier(issuerSpki)))),
    ],
  });
  return { key: pair.pem, cert };
}
