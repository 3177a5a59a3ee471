import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** Writes the supported ranges, in ApiVersions' own format (compact in a flexible version). */
export type RangesWriter = (writer: Writer) => void;

/** Kafka's rule for the client software name and version a v3 request carries. */
const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/**
 * ApiVersions: every implemented API key with its version range. From v3 the client names its
 * software and version, which Kafka validates (INVALID_REQUEST, still with the ranges, when one
 * is malformed). The answer goes with response header v0 in every version (see the connection).
 */
export function apiVersions(writeRanges: RangesWriter): ApiModule {
  return {
    key: 18,
    name: 'ApiVersions',
    minVersion: 0,
    maxVersion: 4,
    flexibleVersion: 3,
    beforeAuthentication: true,
    handle(context, reader) {
      let errorCode: number = ErrorCode.NONE;
      if (context.version >= 3) {
        const softwareName = reader.string();
        const softwareVersion = reader.string();
        reader.tags();
        if (!SOFTWARE_PATTERN.test(softwareName) || !SOFTWARE_PATTERN.test(softwareVersion)) {
          errorCode = ErrorCode.INVALID_REQUEST;
        }
        context.log.debug(
          {
            clientSoftware: softwareName.slice(0, 100),
            clientSoftwareVersion: softwareVersion.slice(0, 100),
          },
          'client software',
        );
      }
      const writer = new Writer(context.flexible).int16(errorCode);
      writeRanges(writer);
      if (context.version >= 1) writer.int32(0);
      return writer.tags();
    },
  };
}
