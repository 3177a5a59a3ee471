import { badRequest } from './kube-status.js';

/**
 * kubectl writes built-in kinds as Kubernetes protobuf (`application/vnd.kubernetes.protobuf`)
 * and does not fall back to JSON when refused, so `kubectl create namespace` needs this: the
 * `k8s\0` envelope (runtime.Unknown) around a core/v1 Namespace, of which the metadata fields a
 * new namespace can carry are read. Everything else in the message is skipped.
 */

export const PROTOBUF_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

interface Field {
  number: number;
  /** Length-delimited content; undefined for the other wire types. */
  bytes?: Buffer;
}

function* fields(buffer: Buffer): Generator<Field> {
  let offset = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (offset >= buffer.length) throw badRequest('the protobuf body is truncated');
      const byte = buffer[offset] ?? 0;
      offset += 1;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) throw badRequest('the protobuf body holds a malformed number');
    }
  };
  while (offset < buffer.length) {
    const key = varint();
    const number = Math.floor(key / 8);
    switch (key % 8) {
      case 0:
        varint();
        yield { number };
        break;
      case 1:
        offset += 8;
        yield { number };
        break;
      case 2: {
        const length = varint();
        if (offset + length > buffer.length) throw badRequest('the protobuf body is truncated');
        yield { number, bytes: buffer.subarray(offset, offset + length) };
        offset += length;
        break;
      }
      case 5:
        offset += 4;
        yield { number };
        break;
      default:
        throw badRequest('the protobuf body uses a wire type this server does not read');
    }
  }
}

function mapEntry(bytes: Buffer): [string, string] {
  let key = '';
  let value = '';
  for (const field of fields(bytes)) {
    if (field.number === 1 && field.bytes) key = field.bytes.toString('utf8');
    if (field.number === 2 && field.bytes) value = field.bytes.toString('utf8');
  }
  return [key, value];
}

function objectMeta(bytes: Buffer): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  for (const field of fields(bytes)) {
    if (!field.bytes) continue;
    if (field.number === 1) metadata.name = field.bytes.toString('utf8');
    else if (field.number === 2) metadata.generateName = field.bytes.toString('utf8');
    else if (field.number === 11) Object.assign(labels, Object.fromEntries([mapEntry(field.bytes)]));
    else if (field.number === 12) Object.assign(annotations, Object.fromEntries([mapEntry(field.bytes)]));
  }
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  return metadata;
}

/** The Namespace a protobuf body describes, as JSON; a body that is not one is a 400. */
export function decodeProtobufNamespace(body: Buffer): Record<string, unknown> {
  if (!body.subarray(0, 4).equals(MAGIC)) throw badRequest('the protobuf body lacks the k8s envelope');
  let kind = '';
  let raw: Buffer | undefined;
  for (const field of fields(body.subarray(4))) {
    if (field.number === 1 && field.bytes) {
      for (const typeField of fields(field.bytes)) {
        if (typeField.number === 2 && typeField.bytes) kind = typeField.bytes.toString('utf8');
      }
    } else if (field.number === 2) {
      raw = field.bytes;
    }
  }
  if (kind !== 'Namespace' || raw === undefined) {
    throw badRequest(`the protobuf body describes a ${kind || 'nothing'}, not a Namespace`);
  }
  let metadata: Record<string, unknown> = {};
  for (const field of fields(raw)) if (field.number === 1 && field.bytes) metadata = objectMeta(field.bytes);
  return { apiVersion: 'v1', kind: 'Namespace', metadata };
}
