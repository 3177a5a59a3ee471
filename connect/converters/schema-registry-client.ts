/**
 * The schema registry as Confluent's converters reach it: over HTTP at `schema.registry.url`, with
 * HTTP Basic credentials from `basic.auth.user.info` (`basic.auth.credentials.source=USER_INFO`)
 * or the URL's user info (`URL`); schemas looked up by id, registered (or only looked up, with
 * `auto.register.schemas=false`) under a subject. Answers are cached: an id's schema never changes.
 */
import { DataException, RetriableException } from '../connect-exceptions.js';

export type RegistrySchemaType = 'AVRO' | 'PROTOBUF' | 'JSON';

export interface RegisteredSchema {
  schema: string;
  schemaType: RegistrySchemaType;
}

const REQUEST_TIMEOUT_MS = 30_000;
export const CREDENTIAL_SOURCES = ['URL', 'USER_INFO'] as const;

export function registryProblems(config: Record<string, string>): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  const url = config['schema.registry.url'];
  if (!url)
    problems['schema.registry.url'] = [
      'Missing required configuration "schema.registry.url" which has no default value.',
    ];
  else if (!/^https?:\/\//.test(url.split(',')[0]!.trim()))
    problems['schema.registry.url'] = ['must be an http(s) URL'];
  const source = config['basic.auth.credentials.source'];
  if (source !== undefined && !(CREDENTIAL_SOURCES as readonly string[]).includes(source)) {
    problems['basic.auth.credentials.source'] = [
      `Invalid value ${source} for configuration basic.auth.credentials.source: must be one of ${CREDENTIAL_SOURCES.join(', ')}`,
    ];
  }
  const userInfo = config['basic.auth.user.info'] ?? config['schema.registry.basic.auth.user.info'];
  if (source === 'USER_INFO' && !userInfo?.includes(':')) {
    problems['basic.auth.user.info'] = [
      'basic.auth.credentials.source USER_INFO needs basic.auth.user.info as user:password',
    ];
  }
  return problems;
}

export class SchemaRegistryClient {
  private readonly base: string;
  private readonly authorization: string | undefined;
  private readonly byId = new Map<number, Promise<RegisteredSchema>>();
  private readonly ids = new Map<string, Promise<number>>();

  constructor(config: Record<string, string>) {
    const url = new URL((config['schema.registry.url'] ?? '').split(',')[0]!.trim());
    const source = config['basic.auth.credentials.source'] ?? 'URL';
    const userInfo =
      source === 'USER_INFO'
        ? (config['basic.auth.user.info'] ?? config['schema.registry.basic.auth.user.info'])
        : url.username
          ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
          : undefined;
    this.authorization = userInfo ? `Basic ${Buffer.from(userInfo).toString('base64')}` : undefined;
    url.username = '';
    url.password = '';
    this.base = url.toString().replace(/\/+$/, '');
  }

  /** The schema registered with `id`. */
  schemaById(id: number): Promise<RegisteredSchema> {
    let found = this.byId.get(id);
    if (!found) {
      found = this.request('GET', `/schemas/ids/${id}`).then((body) => ({
        schema: String(body.schema),
        schemaType: (body.schemaType as RegistrySchemaType | undefined) ?? 'AVRO',
      }));
      found.catch(() => this.byId.delete(id));
      this.byId.set(id, found);
    }
    return found;
  }

  /** The id of `schema` under `subject`: registered when `register`, else looked up. */
  idOf(subject: string, schema: RegisteredSchema, register: boolean): Promise<number> {
    const key = `${register}\u0000${subject}\u0000${schema.schemaType}\u0000${schema.schema}`;
    let found = this.ids.get(key);
    if (!found) {
      const path = `/subjects/${encodeURIComponent(subject)}${register ? '/versions' : ''}`;
      const body = {
        schema: schema.schema,
        ...(schema.schemaType === 'AVRO' ? {} : { schemaType: schema.schemaType }),
      };
      found = this.request('POST', path, body).then((answer) => Number(answer.id));
      found.catch(() => this.ids.delete(key));
      this.ids.set(key, found);
    }
    return found;
  }

  private async request(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          accept: 'application/vnd.schemaregistry.v1+json',
          ...(this.authorization ? { authorization: this.authorization } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/vnd.schemaregistry.v1+json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new RetriableException(
        `the schema registry at ${this.base} did not answer: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    const text = await response.text();
    let answer: Record<string, unknown> = {};
    try {
      answer = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      // A body that is no JSON says nothing more than its status.
    }
    if (response.ok) return answer;
    const message = `${String(answer.message ?? response.statusText)}; error code: ${String(answer.error_code ?? response.status)}`;
    if (response.status >= 500 || response.status === 429) throw new RetriableException(message);
    throw new DataException(message);
  }
}

/** Confluent's subject name strategies, by class name. */
export const SUBJECT_NAME_STRATEGIES = {
  'io.confluent.kafka.serializers.subject.TopicNameStrategy': (topic: string, isKey: boolean) =>
    `${topic}-${isKey ? 'key' : 'value'}`,
  'io.confluent.kafka.serializers.subject.RecordNameStrategy': (
    _topic: string,
    _isKey: boolean,
    record: string,
  ) => record,
  'io.confluent.kafka.serializers.subject.TopicRecordNameStrategy': (
    topic: string,
    _isKey: boolean,
    record: string,
  ) => `${topic}-${record}`,
} as const;

export type SubjectNameStrategy = (topic: string, isKey: boolean, recordName: string) => string;

const strategyKey = (isKey: boolean) => (isKey ? 'key.subject.name.strategy' : 'value.subject.name.strategy');

/** The strategy the converter's keys name (TopicNameStrategy by default; the simple class name will do). */
export function subjectNameStrategyOf(
  config: Record<string, string>,
  isKey: boolean,
): SubjectNameStrategy | undefined {
  const name = config[strategyKey(isKey)] ?? 'io.confluent.kafka.serializers.subject.TopicNameStrategy';
  const found = Object.entries(SUBJECT_NAME_STRATEGIES).find(
    ([className]) => className === name || className.endsWith(`.${name}`),
  );
  return found?.[1];
}

export function strategyProblems(config: Record<string, string>): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  for (const isKey of [true, false]) {
    const key = strategyKey(isKey);
    if (config[key] !== undefined && !subjectNameStrategyOf(config, isKey)) {
      problems[key] = [
        `Invalid value ${config[key]} for configuration ${key}: one of ${Object.keys(SUBJECT_NAME_STRATEGIES).join(', ')}`,
      ];
    }
  }
  return problems;
}
