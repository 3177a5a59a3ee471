import { badRequest } from './kube-status.js';

/**
 * kubectl writes built-in kinds as Kubernetes protobuf (`application/vnd.kubernetes.protobuf`)
 * and does not fall back to JSON when refused, so `kubectl create namespace|serviceaccount|role|
 * rolebinding|token` and `kubectl auth can-i|whoami` need this: the `k8s\0` envelope
 * (runtime.Unknown) around one of the built-in kinds this API serves, decoded to its JSON form.
 * Only the fields those kinds carry in a create are read; everything else is skipped.
 */

export const PROTOBUF_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

interface Field {
  number: number;
  /** Length-delimited content; undefined for the other wire types. */
  bytes?: Buffer;
  /** The value of a varint. */
  value?: number;
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
        yield { number, value: varint() };
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
    else if (field.number === 3) metadata.namespace = field.bytes.toString('utf8');
    else if (field.number === 11) Object.assign(labels, Object.fromEntries([mapEntry(field.bytes)]));
    else if (field.number === 12) Object.assign(annotations, Object.fromEntries([mapEntry(field.bytes)]));
  }
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  return metadata;
}

type Message = Record<string, unknown>;
type Decoder = (bytes: Buffer) => unknown;

const text: Decoder = (bytes) => bytes.toString('utf8');

/** A message of the given fields: number → [JSON name, decoder, repeated]. */
function message(shape: Record<number, [name: string, decode: Decoder, repeated?: boolean]>): Decoder {
  return (bytes) => {
    const decoded: Message = {};
    for (const field of fields(bytes)) {
      const entry = shape[field.number];
      if (entry === undefined || field.bytes === undefined) continue;
      const [name, decode, repeated] = entry;
      const value = decode(field.bytes);
      if (repeated) decoded[name] = [...((decoded[name] as unknown[] | undefined) ?? []), value];
      else decoded[name] = value;
    }
    return decoded;
  };
}

/** An int64 field, which a varint carries. */
function withInteger(decoder: Decoder, number: number, name: string): Decoder {
  return (bytes) => {
    const decoded = decoder(bytes) as Message;
    for (const field of fields(bytes))
      if (field.number === number && field.value !== undefined) decoded[name] = field.value;
    return decoded;
  };
}

const policyRule = message({
  1: ['verbs', text, true],
  2: ['apiGroups', text, true],
  3: ['resources', text, true],
  4: ['resourceNames', text, true],
  5: ['nonResourceURLs', text, true],
});
const subject = message({
  1: ['kind', text],
  2: ['apiGroup', text],
  3: ['name', text],
  4: ['namespace', text],
});
const roleRef = message({ 1: ['apiGroup', text], 2: ['kind', text], 3: ['name', text] });
const resourceAttributes = message({
  1: ['namespace', text],
  2: ['verb', text],
  3: ['group', text],
  4: ['version', text],
  5: ['resource', text],
  6: ['subresource', text],
  7: ['name', text],
});
const nonResourceAttributes = message({ 1: ['path', text], 2: ['verb', text] });
const accessReviewSpec = message({
  1: ['resourceAttributes', resourceAttributes],
  2: ['nonResourceAttributes', nonResourceAttributes],
});

/** The body of each kind after its metadata (field 1), by kind. */
const BODIES: Record<string, Decoder> = {
  Namespace: message({}),
  ServiceAccount: message({}),
  Role: message({ 2: ['rules', policyRule, true] }),
  ClusterRole: message({ 2: ['rules', policyRule, true] }),
  RoleBinding: message({ 2: ['subjects', subject, true], 3: ['roleRef', roleRef] }),
  ClusterRoleBinding: message({ 2: ['subjects', subject, true], 3: ['roleRef', roleRef] }),
  TokenRequest: message({
    2: ['spec', withInteger(message({ 1: ['audiences', text, true] }), 4, 'expirationSeconds')],
  }),
  TokenReview: message({ 2: ['spec', message({ 1: ['token', text], 2: ['audiences', text, true] })] }),
  SelfSubjectAccessReview: message({ 2: ['spec', accessReviewSpec] }),
  SelfSubjectReview: message({}),
  SubjectAccessReview: message({
    2: [
      'spec',
      message({
        1: ['resourceAttributes', resourceAttributes],
        2: ['nonResourceAttributes', nonResourceAttributes],
        3: ['user', text],
        4: ['groups', text, true],
        6: ['uid', text],
      }),
    ],
  }),
};

/** The object a protobuf body describes, as JSON; a body that is not one of `BODIES` is a 400. */
export function decodeProtobufObject(body: Buffer): Record<string, unknown> {
  if (!body.subarray(0, 4).equals(MAGIC)) throw badRequest('the protobuf body lacks the k8s envelope');
  let apiVersion = '';
  let kind = '';
  let raw: Buffer | undefined;
  for (const field of fields(body.subarray(4))) {
    if (field.number === 1 && field.bytes) {
      for (const typeField of fields(field.bytes)) {
        if (typeField.number === 1 && typeField.bytes) apiVersion = typeField.bytes.toString('utf8');
        if (typeField.number === 2 && typeField.bytes) kind = typeField.bytes.toString('utf8');
      }
    } else if (field.number === 2) {
      raw = field.bytes;
    }
  }
  const decodeBody = BODIES[kind];
  if (decodeBody === undefined || raw === undefined) {
    throw badRequest(
      `the protobuf body describes a ${kind || 'nothing'}, which this server reads only as JSON`,
    );
  }
  let metadata: Record<string, unknown> = {};
  for (const field of fields(raw)) if (field.number === 1 && field.bytes) metadata = objectMeta(field.bytes);
  return { apiVersion, kind, metadata, ...(decodeBody(raw) as Message) };
}
