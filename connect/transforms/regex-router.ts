/**
 * `RegexRouter`: a topic the regular expression matches whole is renamed with the replacement,
 * where `$1` (or `${name}`) is a group, as Java's `Matcher.replaceFirst` reads it.
 */
import { javaPattern, type TransformationPlugin } from './transformation.js';

/** A Java replacement string in JavaScript's syntax: `${name}` is `$<name>`, `\$` a dollar. */
export function javaReplacement(replacement: string): string {
  let out = '';
  for (let index = 0; index < replacement.length; index += 1) {
    const char = replacement[index]!;
    if (char === '\\' && index + 1 < replacement.length) {
      const next = replacement[(index += 1)]!;
      out += next === '$' ? '$$' : next;
    } else if (char === '$' && replacement[index + 1] === '{') {
      const end = replacement.indexOf('}', index);
      out += `$<${replacement.slice(index + 2, end)}>`;
      index = end;
    } else {
      out += char;
    }
  }
  return out;
}

export const REGEX_ROUTER: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.RegexRouter',
  sides: 'record',
  keys: [
    {
      name: 'regex',
      type: 'STRING',
      required: true,
      documentation: 'Regular expression to use for matching.',
    },
    { name: 'replacement', type: 'STRING', required: true, documentation: 'Replacement string.' },
  ],
  configure(settings) {
    const regex = javaPattern('regex', settings.string('regex') ?? '');
    const replacement = javaReplacement(settings.string('replacement') ?? '');
    return (record) =>
      regex.test(record.topic) ? { ...record, topic: record.topic.replace(regex, replacement) } : record;
  },
};
