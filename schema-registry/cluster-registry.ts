/**
 * One streaming cluster's schema registry, with Confluent Schema Registry's semantics: subjects
 * and their versions, schema ids global to the cluster (the same content keeps its id), soft and
 * permanent deletes, compatibility levels and modes per subject or for the whole registry.
 */
import type { DataPlane } from '../data-plane/data-plane.js';
import { LOCK_CLASSES, serializedTransaction } from '../data-plane/serialized-transaction.js';
import { canonicalSchemaText, compatibilityProblems, validateSchema } from './compatibility.js';
import {
  incompatibleSchema,
  invalidCompatibilityLevel,
  invalidMode,
  invalidSchema,
  invalidVersion,
  operationNotPermitted,
  referenceExists,
  SchemaRegistryError,
  schemaNotFound,
  subjectCompatibilityNotFound,
  subjectModeNotFound,
  subjectNotFound,
  subjectNotSoftDeleted,
  versionAlreadySoftDeleted,
  versionNotFound,
  versionNotSoftDeleted,
} from './schema-registry-error.js';
import {
  compatibilityLevelOf,
  DEFAULT_COMPATIBILITY,
  DEFAULT_MODE,
  isSchemaType,
  modeOf,
  type CompatibilityLevel,
  type Mode,
  type SchemaContent,
  type SchemaReference,
} from './schema-types.js';
import { fingerprintOf, SubjectStore, type StoredSchema, type SubjectVersion } from './subject-store.js';

const GLOBAL = '';
const MAX_VERSION = 2 ** 31 - 1;

/** What a client sends to register, look up or test a schema. */
export interface SchemaInput {
  schema?: unknown;
  schemaType?: unknown;
  references?: unknown;
  /** IMPORT mode only: the id and version to keep. */
  id?: unknown;
  version?: unknown;
}

/** `latest`, `-1` or a version number, as a subject's path takes it. */
export type VersionSpec = number | 'latest';

/** Parses a version as written in a path; throws 42202 when it is none. */
export function versionSpecOf(text: string): VersionSpec {
  if (text === 'latest' || text === '-1') return 'latest';
  const version = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(version) || version < 1 || version > MAX_VERSION) throw invalidVersion(text);
  return version;
}

function referencesOf(value: unknown): SchemaReference[] {
  if (value === undefined || value === null) return [];
  const valid =
    Array.isArray(value) &&
    value.every(
      (reference: unknown) =>
        typeof reference === 'object' &&
        reference !== null &&
        typeof (reference as SchemaReference).name === 'string' &&
        typeof (reference as SchemaReference).subject === 'string' &&
        Number.isInteger((reference as SchemaReference).version),
    );
  if (!valid) throw invalidSchema('references must be a list of {name, subject, version}');
  return (value as SchemaReference[]).map(({ name, subject, version }) => ({ name, subject, version }));
}

function positiveInteger(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_VERSION) {
    throw new SchemaRegistryError(42201, `${field} must be a positive integer`);
  }
  return value as number;
}

export class ClusterRegistry {
  constructor(
    private readonly database: DataPlane,
    /** The StreamingCluster's REST id (`esc_…`). */
    readonly cluster: string,
    private readonly now: () => Date,
  ) {}

  private get store(): SubjectStore {
    return new SubjectStore(this.database.kysely, this.cluster);
  }

  private async content(input: SchemaInput, store: SubjectStore): Promise<SchemaContent> {
    const schemaType = input.schemaType ?? 'AVRO';
    if (!isSchemaType(schemaType)) {
      throw invalidSchema(
        `unknown schemaType ${JSON.stringify(schemaType)}; AVRO, JSON and PROTOBUF are known`,
      );
    }
    if (typeof input.schema !== 'string' || input.schema.trim() === '') {
      throw invalidSchema('the body must hold the schema as a string in "schema"');
    }
    const references = referencesOf(input.references);
    const content: SchemaContent = {
      schemaType,
      schema: canonicalSchemaText(schemaType, input.schema),
      references,
      resolvedReferences: await store.resolveReferences(references),
    };
    validateSchema(content);
    return content;
  }

  /** Every subject with a live version (or any version, with `includeDeleted`), sorted. */
  async subjects(includeDeleted = false): Promise<string[]> {
    const versions = await this.store.versions();
    return [...new Set(versions.filter((row) => includeDeleted || !row.deleted).map((row) => row.subject))];
  }

  private async subjectVersions(store: SubjectStore, subject: string, includeDeleted: boolean) {
    const versions = (await store.versions(subject)).filter((row) => includeDeleted || !row.deleted);
    if (versions.length === 0) throw subjectNotFound(subject);
    return versions;
  }

  async versionNumbers(subject: string, includeDeleted = false): Promise<number[]> {
    return (await this.subjectVersions(this.store, subject, includeDeleted)).map((row) => row.version);
  }

  /** A version of a subject; `latest` is its highest live version. */
  async version(subject: string, spec: VersionSpec, includeDeleted = false): Promise<SubjectVersion> {
    return this.findVersion(this.store, subject, spec, includeDeleted);
  }

  private async findVersion(
    store: SubjectStore,
    subject: string,
    spec: VersionSpec,
    includeDeleted: boolean,
  ): Promise<SubjectVersion> {
    const versions = await this.subjectVersions(store, subject, includeDeleted || spec !== 'latest');
    const live = versions.filter((row) => !row.deleted);
    const found =
      spec === 'latest'
        ? live.at(-1)
        : versions.find((row) => row.version === spec && (includeDeleted || !row.deleted));
    if (!found) {
      if (live.length === 0 && !includeDeleted) throw subjectNotFound(subject);
      throw versionNotFound(subject, spec);
    }
    return found;
  }

  async schemaById(id: number): Promise<StoredSchema> {
    const schema = await this.store.schemaById(id);
    if (!schema) throw schemaNotFound();
    return schema;
  }

  /** The subjects and versions that hold schema `id`. */
  async versionsOfSchema(
    id: number,
    includeDeleted = false,
  ): Promise<{ subject: string; version: number }[]> {
    await this.schemaById(id);
    return (await this.store.versionsOfSchema(id))
      .filter((row) => includeDeleted || !row.deleted)
      .map(({ subject, version }) => ({ subject, version }));
  }

  /** The ids of the schemas whose references name this version. */
  async referencedBy(subject: string, spec: VersionSpec): Promise<number[]> {
    const version = await this.version(subject, spec);
    return this.referrers(this.store, subject, version.version);
  }

  private async referrers(store: SubjectStore, subject: string, version: number): Promise<number[]> {
    const live = new Set((await store.versions()).filter((row) => !row.deleted).map((row) => row.id));
    return (await store.allSchemas())
      .filter((schema) => live.has(schema.id))
      .filter((schema) => schema.references.some((ref) => ref.subject === subject && ref.version === version))
      .map((schema) => schema.id);
  }

  /** The level in force for a subject: its own, else the registry's, else BACKWARD. */
  async compatibilityOf(subject: string, store = this.store): Promise<CompatibilityLevel> {
    const own = (await store.setting(subject))?.compatibility;
    return compatibilityLevelOf(own) ?? (await this.globalCompatibility(store));
  }

  async globalCompatibility(store = this.store): Promise<CompatibilityLevel> {
    return compatibilityLevelOf((await store.setting(GLOBAL))?.compatibility) ?? DEFAULT_COMPATIBILITY;
  }

  /** A subject's own level; 40408 when it has none (unless `defaultToGlobal`). */
  async subjectCompatibility(subject: string, defaultToGlobal = false): Promise<CompatibilityLevel> {
    const own = compatibilityLevelOf((await this.store.setting(subject))?.compatibility);
    if (own) return own;
    if (defaultToGlobal) return this.globalCompatibility();
    throw subjectCompatibilityNotFound(subject);
  }

  /** Sets the level of a subject, or of the registry when `subject` is undefined. */
  async setCompatibility(subject: string | undefined, value: unknown): Promise<CompatibilityLevel> {
    const level = compatibilityLevelOf(value);
    if (!level) throw invalidCompatibilityLevel(value);
    await this.store.writeSetting(subject ?? GLOBAL, { compatibility: level });
    return level;
  }

  /** Removes a subject's level (or resets the registry's) and answers the one it had. */
  async deleteCompatibility(subject: string | undefined): Promise<CompatibilityLevel> {
    const previous =
      subject === undefined ? await this.globalCompatibility() : await this.subjectCompatibility(subject);
    await this.store.writeSetting(subject ?? GLOBAL, { compatibility: null });
    return previous;
  }

  async modeOf(subject: string | undefined, defaultToGlobal = false, store = this.store): Promise<Mode> {
    const globalMode = modeOf((await store.setting(GLOBAL))?.mode) ?? DEFAULT_MODE;
    if (subject === undefined) return globalMode;
    const own = modeOf((await store.setting(subject))?.mode);
    if (own) return own;
    if (defaultToGlobal) return globalMode;
    throw subjectModeNotFound(subject);
  }

  async setMode(subject: string | undefined, value: unknown): Promise<Mode> {
    const mode = modeOf(value);
    if (!mode) throw invalidMode(value);
    await this.store.writeSetting(subject ?? GLOBAL, { mode });
    return mode;
  }

  async deleteMode(subject: string): Promise<Mode> {
    const previous = await this.modeOf(subject);
    await this.store.writeSetting(subject, { mode: null });
    return previous;
  }

  private async refuseWhenReadOnly(store: SubjectStore, subject: string): Promise<Mode> {
    const mode = await this.modeOf(subject, true, store);
    if (mode === 'READONLY') throw operationNotPermitted(`Subject '${subject}' is in read-only mode`);
    return mode;
  }

  /**
   * Runs `work` serialised with the cluster's other writes. Everything it reads goes through the
   * store it is handed: on SQLite the transaction holds the only connection.
   */
  private transaction<T>(work: (store: SubjectStore) => Promise<T>): Promise<T> {
    return serializedTransaction(
      this.database,
      // Ids and versions are allocated by reading the highest: one writer per cluster at a time.
      { lockClass: LOCK_CLASSES.schemaRegistry, key: this.cluster },
      (trx) => work(new SubjectStore(trx, this.cluster)),
    );
  }

  /**
   * Registers a schema under a subject: the id it has when the subject holds it already, else a
   * new version after the compatibility check (skipped in IMPORT mode, which takes the id and
   * version the client gives). Throws 409 naming each reason it is incompatible.
   */
  async register(subject: string, input: SchemaInput): Promise<{ id: number }> {
    return this.transaction(async (store) => {
      const mode = await this.refuseWhenReadOnly(store, subject);
      const content = await this.content(input, store);
      const askedId = positiveInteger(input.id, 'id');
      const askedVersion = positiveInteger(input.version, 'version');
      if (mode !== 'IMPORT' && (askedId !== undefined || askedVersion !== undefined)) {
        throw operationNotPermitted('an id or version may be given only in IMPORT mode');
      }
      const fingerprint = fingerprintOf(content.schemaType, content.schema, content.references);
      const existing = await store.schemaByFingerprint(fingerprint);
      const versions = await store.versions(subject);
      const live = versions.filter((row) => !row.deleted);
      const held = existing && live.find((row) => row.id === existing.id);
      if (held && (askedId === undefined || askedId === held.id)) return { id: held.id };

      if (mode !== 'IMPORT') {
        const earlier = await Promise.all(
          live.map(async (row) => ({ version: row.version, content: await store.contentOf(row) })),
        );
        const problems = compatibilityProblems(await this.compatibilityOf(subject, store), content, earlier);
        if (problems.length > 0) throw incompatibleSchema(problems);
      }
      if (askedId !== undefined && existing && existing.id !== askedId) {
        throw operationNotPermitted(`this schema has id ${existing.id} already, not ${askedId}`);
      }
      let id = existing?.id;
      if (id === undefined) {
        if (askedId !== undefined && (await store.schemaById(askedId))) {
          throw operationNotPermitted(`schema id ${askedId} is taken by another schema`);
        }
        id = askedId ?? (await store.nextSchemaId());
        await store.insertSchema(
          { id, schemaType: content.schemaType, schema: content.schema, references: [...content.references] },
          fingerprint,
          this.now(),
        );
      }
      const version = askedVersion ?? Math.max(0, ...versions.map((row) => row.version)) + 1;
      if (versions.some((row) => row.version === version)) {
        throw operationNotPermitted(`subject '${subject}' has a version ${version} already`);
      }
      await store.insertVersion(subject, version, id, this.now());
      return { id };
    });
  }

  /** The version of a subject that holds this schema; 40403 when none does. */
  async lookup(subject: string, input: SchemaInput, includeDeleted = false): Promise<SubjectVersion> {
    const store = this.store;
    const versions = await this.subjectVersions(store, subject, includeDeleted);
    const content = await this.content(input, store);
    const fingerprint = fingerprintOf(content.schemaType, content.schema, content.references);
    const schema = await store.schemaByFingerprint(fingerprint);
    const found = schema && versions.filter((row) => row.id === schema.id).at(-1);
    if (!found) throw schemaNotFound();
    return found;
  }

  /**
   * Tests a schema against one version of a subject (in the directions the subject's level
   * names), or against the versions the level names when `spec` is undefined.
   */
  async test(subject: string, spec: VersionSpec | undefined, input: SchemaInput): Promise<string[]> {
    const store = this.store;
    const content = await this.content(input, store);
    const level = await this.compatibilityOf(subject, store);
    let compared: SubjectVersion[];
    if (spec === undefined) {
      compared = (await store.versions(subject)).filter((row) => !row.deleted);
    } else {
      compared = [await this.findVersion(store, subject, spec, false)];
    }
    const earlier = await Promise.all(
      compared.map(async (row) => ({ version: row.version, content: await store.contentOf(row) })),
    );
    return compatibilityProblems(spec === undefined ? level : nonTransitive(level), content, earlier);
  }

  /** Soft-deletes a subject's live versions, or permanently removes a soft-deleted subject. */
  async deleteSubject(subject: string, permanent: boolean): Promise<number[]> {
    return this.transaction(async (store) => {
      await this.refuseWhenReadOnly(store, subject);
      const versions = await store.versions(subject);
      if (versions.length === 0) throw subjectNotFound(subject);
      const live = versions.filter((row) => !row.deleted).map((row) => row.version);
      for (const version of live) await this.refuseWhenReferenced(store, subject, version);
      if (permanent) {
        if (live.length > 0) throw subjectNotSoftDeleted(subject);
        const all = versions.map((row) => row.version);
        await store.removeVersions(subject, all);
        await store.removeSetting(subject);
        return all;
      }
      if (live.length === 0) throw new SchemaRegistryError(40404, `Subject '${subject}' was soft deleted.`);
      await store.softDeleteVersions(subject, live);
      return live;
    });
  }

  /** Soft-deletes a version, or permanently removes a soft-deleted one. */
  async deleteVersion(subject: string, spec: VersionSpec, permanent: boolean): Promise<number> {
    return this.transaction(async (store) => {
      await this.refuseWhenReadOnly(store, subject);
      const found = await this.findVersion(store, subject, spec, true);
      await this.refuseWhenReferenced(store, subject, found.version);
      if (permanent) {
        if (!found.deleted) throw versionNotSoftDeleted(subject, found.version);
        await store.removeVersions(subject, [found.version]);
      } else {
        if (found.deleted) throw versionAlreadySoftDeleted(subject, found.version);
        await store.softDeleteVersions(subject, [found.version]);
      }
      return found.version;
    });
  }

  private async refuseWhenReferenced(store: SubjectStore, subject: string, version: number): Promise<void> {
    const referrers = await this.referrers(store, subject, version);
    if (referrers.length > 0) {
      throw referenceExists(
        `One or more references exist to the schema {subject=${subject}, version=${version}}: schema ids ${referrers.join(', ')}`,
      );
    }
  }
}

/** Testing against one named version checks that version alone, in the level's directions. */
function nonTransitive(level: CompatibilityLevel): CompatibilityLevel {
  return level.replace('_TRANSITIVE', '') as CompatibilityLevel;
}
