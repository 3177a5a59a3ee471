import { open, seal } from '../security/sealed-box.js';

/**
 * The encryption every stored value of a cluster passes through: AES-256-GCM (sealed boxes)
 * under the cluster's barrier key. The associated data names the cluster and where the value is
 * stored, so a value copied to another row or another cluster no longer opens.
 */
export class Barrier {
  constructor(
    private readonly key: Buffer,
    private readonly clusterId: string,
  ) {}

  encrypt(location: string, plaintext: Buffer | string): string {
    return seal(this.key, plaintext, this.associatedData(location));
  }

  decrypt(location: string, sealed: string): Buffer {
    return open(this.key, sealed, this.associatedData(location));
  }

  encryptJson(location: string, value: unknown): string {
    return this.encrypt(location, JSON.stringify(value));
  }

  decryptJson<T>(location: string, sealed: string): T {
    return JSON.parse(this.decrypt(location, sealed).toString('utf8')) as T;
  }

  private associatedData(location: string): string {
    return `vault:${this.clusterId}:${location}`;
  }
}
