import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import { SCRAM_MECHANISM, ScramServer } from '../scram.js';
import type { ApiModule } from './api.js';

/** SaslHandshake: picks SCRAM-SHA-512. At v0 the tokens then follow as bare frames. */
export const saslHandshake: ApiModule = {
  key: 17,
  name: 'SaslHandshake',
  minVersion: 0,
  maxVersion: 1,
  beforeAuthentication: true,
  handle(context, reader) {
    const mechanism = reader.string();
    const writer = new Writer();
    if (context.sasl.principal || context.sasl.mechanism) {
      context.sasl.failed = true;
      return writer.int16(ErrorCode.ILLEGAL_SASL_STATE).array([SCRAM_MECHANISM], (w, name) => w.string(name));
    }
    if (mechanism !== SCRAM_MECHANISM) {
      return writer
        .int16(ErrorCode.UNSUPPORTED_SASL_MECHANISM)
        .array([SCRAM_MECHANISM], (w, name) => w.string(name));
    }
    const cluster = context.cluster;
    context.sasl.mechanism = mechanism;
    context.sasl.scram = new ScramServer((name) => cluster.credentialOf(name));
    context.sasl.rawTokens = context.version === 0;
    return writer.int16(ErrorCode.NONE).array([SCRAM_MECHANISM], (w, name) => w.string(name));
  },
};
