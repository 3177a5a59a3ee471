import type { Logger } from 'pino';
import type { Principal } from '../acl.js';
import type { KafkaCluster } from '../cluster.js';
import type { Reader, Writer } from '../protocol/codec.js';
import type { ScramServer } from '../scram.js';

/** A connection's SASL progress, which the SASL modules advance. */
export interface SaslSession {
  mechanism: string | undefined;
  scram: ScramServer | undefined;
  /** After a v0 SaslHandshake the SASL tokens follow as bare frames, without Kafka headers. */
  rawTokens: boolean;
  principal: Principal | undefined;
  /** Set when an exchange failed: the connection closes once the answer is sent, as Kafka's does. */
  failed: boolean;
}

export interface RequestContext {
  cluster: KafkaCluster;
  version: number;
  /** The version is a flexible one: the answer is written with `new Writer(context.flexible)`. */
  flexible: boolean;
  clientId: string;
  clientHost: string;
  /** The broker id whose listener took the connection. */
  brokerId: number;
  sasl: SaslSession;
  /** The authenticated user (only SASL modules run before there is one). */
  principal: Principal;
  log: Logger;
}

/**
 * One API key: its version range, its first flexible version, and its handler, which reads the
 * body and writes the answer.
 */
export interface ApiModule {
  key: number;
  name: string;
  minVersion: number;
  maxVersion: number;
  /**
   * The first version with compact fields and tagged fields (KIP-482), as the key's
   * `flexibleVersions` in Kafka's message schemas; absent when no version is flexible. It also
   * picks the headers: request header v2 and response header v1 from this version on.
   */
  flexibleVersion?: number;
  /** Served before authentication (ApiVersions and the SASL requests). */
  beforeAuthentication?: boolean;
  /** The response body; undefined for no response at all (Produce with acks=0). */
  handle(context: RequestContext, reader: Reader): Writer | undefined | Promise<Writer | undefined>;
}

/** Whether `version` of `module` is written in the flexible shape. */
export function isFlexible(module: ApiModule, version: number): boolean {
  return module.flexibleVersion !== undefined && version >= module.flexibleVersion;
}
