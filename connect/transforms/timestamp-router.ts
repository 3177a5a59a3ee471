/**
 * `TimestampRouter`: the topic becomes `topic.format` with `${topic}` and `${timestamp}` (the
 * record's timestamp in `timestamp.format`, UTC) filled in: `orders-20240131` for a sink to write
 * a table or index per day.
 */
import { simpleDateFormat } from './simple-date-format.js';
import { TransformConfigError, TransformDataError, type TransformationPlugin } from './transformation.js';

export const TIMESTAMP_ROUTER: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.TimestampRouter',
  sides: 'record',
  keys: [
    {
      name: 'topic.format',
      type: 'STRING',
      required: false,
      defaultValue: '${topic}-${timestamp}',
      documentation:
        'Format string which can contain ${topic} and ${timestamp} as placeholders for the topic and timestamp, respectively.',
    },
    {
      name: 'timestamp.format',
      type: 'STRING',
      required: false,
      defaultValue: 'yyyyMMdd',
      documentation: 'Format string for the timestamp that is compatible with java.text.SimpleDateFormat.',
    },
  ],
  configure(settings) {
    const topicFormat = settings.string('topic.format') ?? '';
    const timestampFormat = settings.string('timestamp.format') ?? '';
    let pattern: ReturnType<typeof simpleDateFormat>;
    try {
      pattern = simpleDateFormat(timestampFormat);
    } catch (error) {
      throw new TransformConfigError(
        'timestamp.format',
        `Invalid value ${timestampFormat} for configuration timestamp.format: ${(error as Error).message}`,
      );
    }
    return (record) => {
      if (record.timestamp === null) {
        throw new TransformDataError(
          `Timestamp missing on record: topic ${record.topic}, partition ${record.partition ?? 'null'}`,
        );
      }
      const formatted = pattern.format(record.timestamp);
      const topic = topicFormat.split('${topic}').join(record.topic).split('${timestamp}').join(formatted);
      return { ...record, topic };
    };
  },
};
