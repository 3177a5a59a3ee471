import {
  createHash,
  generateKeyPairSync,
  randomBytes,
  sign,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

/**
 * The self-signed TLS certificate the Kubernetes API is served with. kubectl sends a bearer
 * token only over TLS, so the embedded control plane needs one; the kubeconfig carries the
 * certificate as its authority, which makes the connection verified rather than merely encrypted.
 */

export interface ServingCertificate {
  /** PEM private key (ECDSA P-256). */
  key: string;
  /** PEM certificate, also the authority clients trust. */
  cert: string;
}

const VALIDITY_DAYS = 365;
/** A stored certificate this close to expiry is replaced. */
const RENEW_BEFORE_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

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

function integer(value: Buffer): Buffer {
  const positive = (value[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value;
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

/** A self-signed ECDSA P-256 certificate for `hosts` (DNS names and IP addresses), valid from `now`. */
export function createServingCertificate(
  hosts: readonly string[],
  now: Date = new Date(),
): ServingCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const name = sequence(set(sequence(oid('2.5.4.3'), utf8('cloudplane embedded control plane'))));
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(randomBytes(16)),
    ecdsaWithSha256,
    name,
    sequence(
      time(new Date(now.getTime() - 60 * 60 * 1000)),
      time(new Date(now.getTime() + VALIDITY_DAYS * DAY_MS)),
    ),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(
      3,
      sequence(
        extension('2.5.29.19', true, sequence(TRUE)),
        // digitalSignature and keyCertSign
        extension('2.5.29.15', true, der(0x03, Buffer.from([0x02, 0x84]))),
        extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))),
        extension('2.5.29.17', false, subjectAltNames(hosts)),
        extension(
          '2.5.29.14',
          false,
          octets(
            createHash('sha1')
              .update(publicKey.export({ type: 'spki', format: 'der' }))
              .digest(),
          ),
        ),
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey as KeyObject);
  const certificate = sequence(tbs, ecdsaWithSha256, bitString(signature));
  const body = certificate.toString('base64').replace(/(.{64})/g, '$1\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${body.trimEnd()}\n-----END CERTIFICATE-----\n`,
  };
}

function stillGood(cert: string, hosts: readonly string[], now: Date): boolean {
  try {
    const parsed = new X509Certificate(cert);
    if (Date.parse(parsed.validTo) - now.getTime() < RENEW_BEFORE_DAYS * DAY_MS) return false;
    return hosts.every((host) => (isIP(host) ? parsed.checkIP(host) : parsed.checkHost(host)) !== undefined);
  } catch {
    return false;
  }
}

/**
 * The certificate kept in `dir` (`kubernetes-api.crt` and `.key`, the key readable by its owner
 * only), made when missing, expiring within 30 days, or not covering every one of `hosts`. Kept
 * across restarts so a written kubeconfig stays valid.
 */
export function loadServingCertificate(
  dir: string,
  hosts: readonly string[],
  now: Date = new Date(),
): ServingCertificate {
  const certFile = path.join(dir, 'kubernetes-api.crt');
  const keyFile = path.join(dir, 'kubernetes-api.key');
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) {
    const stored = { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
    if (stillGood(stored.cert, hosts, now)) return stored;
  }
  const created = createServingCertificate(hosts, now);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(keyFile, created.key, { mode: 0o600 });
  fs.chmodSync(keyFile, 0o600);
  fs.writeFileSync(certFile, created.cert, { mode: 0o644 });
  return created;
}
