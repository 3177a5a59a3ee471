import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** Writes the supported ranges, in ApiVersions' own format. */
export type RangesWriter = (writer: Writer) => void;

/** ApiVersions: every implemented API key with its version range. */
export function apiVersions(writeRanges: RangesWriter): ApiModule {
  return {
    key: 18,
    name: 'ApiVersions',
    minVersion: 0,
    maxVersion: 2,
    beforeAuthentication: true,
    handle(context) {
      const writer = new Writer().int16(ErrorCode.NONE);
      writeRanges(writer);
      if (context.version >= 1) writer.int32(0);
      return writer;
    },
  };
}
