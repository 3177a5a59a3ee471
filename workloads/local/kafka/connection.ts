import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { isFlexible, type RequestContext, type SaslSession } from './apis/api.js';
import { apiModule, writeUnsupportedApiVersions } from './apis/registry.js';
import { authenticateToken } from './apis/sasl-authenticate.js';
import type { KafkaCluster } from './cluster.js';
import { ProtocolError, Reader, type Writer } from './protocol/codec.js';
import { FrameDecoder } from './protocol/frame.js';

const API_VERSIONS_KEY = 18;

interface ResponseSlot {
  chunks: Buffer[] | undefined;
  ready: boolean;
}

/**
 * One client connection: frames in, requests dispatched to their API module, responses out in
 * request order (handlers run concurrently, so a long-polling fetch does not hold a heartbeat
 * behind it, yet each starts synchronously in arrival order, so produces keep their order).
 * Anything malformed closes this connection only.
 */
export class Connection {
  private readonly decoder = new FrameDecoder();
  private readonly log: Logger;
  private readonly slots: ResponseSlot[] = [];
  private readonly sasl: SaslSession = {
    mechanism: undefined,
    scram: undefined,
    rawTokens: false,
    principal: undefined,
    failed: false,
  };
  private closed = false;

  constructor(
    private readonly cluster: KafkaCluster,
    private readonly socket: TLSSocket,
    private readonly brokerId: number,
    id: number,
  ) {
    this.log = cluster.logger.child({ connection: `${cluster.clusterId}/${brokerId}/${id}` });
    this.log.debug({ remote: socket.remoteAddress }, 'connection opened');
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.log.debug({ err: error.message }, 'connection error'));
    socket.on('close', () => {
      this.closed = true;
      this.log.debug('connection closed');
    });
  }

  destroy(): void {
    this.closed = true;
    this.socket.destroy();
  }

  private fail(reason: string): void {
    this.log.warn({ reason }, 'closing connection');
    this.destroy();
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    let frames: Buffer[];
    try {
      frames = this.decoder.push(chunk);
    } catch (error) {
      this.fail((error as Error).message);
      return;
    }
    for (const frame of frames) {
      if (this.closed) return;
      try {
        if (this.sasl.rawTokens) this.rawToken(frame);
        else this.request(frame);
      } catch (error) {
        this.fail(
          error instanceof ProtocolError ? error.message : `request failed: ${(error as Error).message}`,
        );
        return;
      }
    }
  }

  /** A SASL token sent bare after a v0 handshake; the answer goes back bare too, a failure closes. */
  private rawToken(frame: Buffer): void {
    const slot = this.reserve();
    const outcome = authenticateToken(this.cluster, this.sasl, frame, this.log);
    if (outcome.errorCode !== 0) {
      this.fail('SASL authentication failed');
      return;
    }
    this.sasl.rawTokens = !this.sasl.principal;
    const size = Buffer.alloc(4);
    size.writeInt32BE(outcome.token.length);
    this.complete(slot, [size, outcome.token]);
  }

  private request(frame: Buffer): void {
    const reader = new Reader(frame);
    const apiKey = reader.int16();
    const version = reader.int16();
    const correlationId = reader.int32();
    // The client id stays an int16-prefixed string in every header version.
    const clientId = reader.nullableString() ?? '';
    const module = apiModule(apiKey);
    if (apiKey === API_VERSIONS_KEY && module && version > module.maxVersion) {
      // KIP-511: the client learns our range from a v0 answer and retries.
      const slot = this.reserve();
      this.complete(slot, this.framed(correlationId, writeUnsupportedApiVersions(), false));
      return;
    }
    if (!module) throw new ProtocolError(`unknown API key ${apiKey}`);
    if (version < module.minVersion || version > module.maxVersion) {
      throw new ProtocolError(`${module.name} v${version} is not supported`);
    }
    const flexible = isFlexible(module, version);
    if (flexible) {
      // Request header v2: the header's tagged fields, then a body of the flexible shape.
      reader.flexible = true;
      reader.tags();
    }
    // ApiVersions answers with response header v0 in every version, so that a client that does
    // not yet know our versions can read it (KIP-511).
    const flexibleHeader = flexible && apiKey !== API_VERSIONS_KEY;
    const principal = this.sasl.principal;
    if (!principal && !module.beforeAuthentication)
      throw new ProtocolError(`${module.name} before authentication`);
    const context: RequestContext = {
      cluster: this.cluster,
      version,
      flexible,
      clientId,
      clientHost: this.socket.remoteAddress ?? '',
      brokerId: this.brokerId,
      sasl: this.sasl,
      principal: principal ?? { name: '', superuser: false, acls: [] },
      log: this.log,
    };
    const slot = this.reserve();
    const answered = (body: Writer | undefined) => {
      this.complete(slot, body ? this.framed(correlationId, body, flexibleHeader) : undefined);
      // A failed authentication: Kafka answers with the error, then closes the connection.
      if (this.sasl.failed) this.socket.end();
    };
    let result: Writer | undefined | Promise<Writer | undefined>;
    try {
      result = module.handle(context, reader);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      this.log.error({ err: error, api: module.name }, 'request handler failed');
      throw error;
    }
    if (result instanceof Promise) {
      result.then(answered, (error: unknown) => {
        this.log.error({ err: error, api: module.name }, 'request handler failed');
        this.destroy();
      });
    } else answered(result);
  }

  /** Size, response header (v1 adds an empty tagged-field section) and body. */
  private framed(correlationId: number, body: Writer, flexibleHeader: boolean): Buffer[] {
    const chunks = body.finish();
    const headerBytes = flexibleHeader ? 5 : 4;
    const head = Buffer.allocUnsafe(4 + headerBytes);
    head.writeInt32BE(body.length + headerBytes, 0);
    head.writeInt32BE(correlationId, 4);
    if (flexibleHeader) head.writeUInt8(0, 8);
    return [head, ...chunks];
  }

  private reserve(): ResponseSlot {
    const slot: ResponseSlot = { chunks: undefined, ready: false };
    this.slots.push(slot);
    return slot;
  }

  private complete(slot: ResponseSlot, chunks: Buffer[] | undefined): void {
    slot.chunks = chunks;
    slot.ready = true;
    if (this.closed) return;
    const ready: Buffer[] = [];
    while (this.slots.length > 0 && this.slots[0]!.ready) ready.push(...(this.slots.shift()!.chunks ?? []));
    for (const piece of coalesced(ready)) this.socket.write(piece);
  }
}

/** A chunk at least this large is written on its own; smaller ones are joined. */
const OWN_WRITE_BYTES = 16_384;

/**
 * The chunks to write, runs of small ones (headers, small answers) joined into one buffer and large
 * ones (record batches) kept as they are. TLS copies the buffers of a multi-buffer write into one
 * new allocation before encrypting them, which for a fetch answer is a megabyte of fresh pages a
 * request; a single buffer it encrypts where it lies.
 */
export function coalesced(chunks: readonly Buffer[]): Buffer[] {
  const pieces: Buffer[] = [];
  let run: Buffer[] = [];
  const endRun = () => {
    if (run.length === 1) pieces.push(run[0]!);
    else if (run.length > 1) pieces.push(Buffer.concat(run));
    run = [];
  };
  for (const chunk of chunks) {
    if (chunk.length >= OWN_WRITE_BYTES) {
      endRun();
      pieces.push(chunk);
    } else run.push(chunk);
  }
  endRun();
  return pieces;
}
