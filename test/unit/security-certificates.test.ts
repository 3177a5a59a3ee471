import { X509Certificate } from 'node:crypto';
import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import {
  createAuthority,
  createSelfSignedCertificate,
  issueCertificate,
} from '../../security/certificates.js';

describe('certificates', () => {
  it('issues a server certificate its authority verifies, naming IP addresses and DNS names', () => {
    const authority = createAuthority('test authority');
    const issued = issueCertificate(authority, {
      commonName: 'broker',
      sans: ['127.0.0.1', 'broker.example'],
      days: 30,
    });
    const certificate = new X509Certificate(issued.cert);
    const ca = new X509Certificate(authority.cert);
    expect(certificate.checkIssued(ca)).toBe(true);
    expect(certificate.verify(ca.publicKey)).toBe(true);
    expect(certificate.subjectAltName).toBe('IP Address:127.0.0.1, DNS:broker.example');
    expect(certificate.checkHost('broker.example')).toBe('broker.example');
    expect(ca.ca).toBe(true);
    expect(() =>
      tls.createSecureContext({ key: issued.key, cert: issued.cert, ca: authority.cert }),
    ).not.toThrow();
  });

  // A random serial starts with a zero byte one time in 256, and a DER INTEGER must not be
  // padded: every certificate of a few hundred must still parse.
  it('encodes serials minimally, whatever their first byte', () => {
    const authority = createAuthority();
    for (let index = 0; index < 600; index += 1) {
      const { cert } = issueCertificate(authority, { commonName: `c${index}`, sans: ['127.0.0.1'], days: 1 });
      expect(() => new X509Certificate(cert)).not.toThrow();
    }
    for (let index = 0; index < 50; index += 1) {
      const { cert } = createSelfSignedCertificate('self', ['localhost'], 1);
      expect(() => new X509Certificate(cert)).not.toThrow();
    }
  });
});
