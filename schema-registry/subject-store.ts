/**
 * The rows of one cluster's registry: schemas, subjects' versions and settings, read and written
 * through one Kysely handle (the data plane or a transaction of it).
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DataPlaneSchema } from '../data-plane/schema.js';
import { invalidSchema } from './schema-registry-error.js';
import type { ResolvedReference, SchemaContent, SchemaReference, SchemaType } from './schema-types.js';

export type Db = Kysely<DataPlaneSchema>;

/** A schema as the registry keeps it. */
export interface StoredSchema {
  id: number;
  schemaType: SchemaType;
  schema: string;
  references: SchemaReference[];
}

/** One version of a subject and its schema. */
export interface SubjectVersion extends StoredSchema {
  subject: string;
  version: number;
  deleted: boolean;
}

/** The digest that makes the same content one schema, whatever subject it is registered under. */
export function fingerprintOf(
  schemaType: SchemaType,
  schema: string,
  references: readonly SchemaReference[],
) {
  return createHash('sha256')
    .update(JSON.stringify([schemaType, schema, references.map((r) => [r.name, r.subject, r.version])]))
    .digest('hex');
}

function storedSchema(row: {
  id: number;
  schema_type: string;
  schema: string;
  schema_references: string;
}): StoredSchema {
  return {
    id: row.id,
    schemaType: row.schema_type as SchemaType,
    schema: row.schema,
    references: JSON.parse(row.schema_references) as SchemaReference[],
  };
}

export class SubjectStore {
  constructor(
    readonly db: Db,
    readonly cluster: string,
  ) {}

  async schemaById(id: number): Promise<StoredSchema | undefined> {
    const row = await this.db
      .selectFrom('schema_registry_schemas')
      .select(['id', 'schema_type', 'schema', 'schema_references'])
      .where('cluster', '=', this.cluster)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? storedSchema(row) : undefined;
  }

  async schemaByFingerprint(fingerprint: string): Promise<StoredSchema | undefined> {
    const row = await this.db
      .selectFrom('schema_registry_schemas')
      .select(['id', 'schema_type', 'schema', 'schema_references'])
      .where('cluster', '=', this.cluster)
      .where('fingerprint', '=', fingerprint)
      .executeTakeFirst();
    return row ? storedSchema(row) : undefined;
  }

  async allSchemas(): Promise<StoredSchema[]> {
    const rows = await this.db
      .selectFrom('schema_registry_schemas')
      .select(['id', 'schema_type', 'schema', 'schema_references'])
      .where('cluster', '=', this.cluster)
      .execute();
    return rows.map(storedSchema);
  }

  async nextSchemaId(): Promise<number> {
    const row = await this.db
      .selectFrom('schema_registry_schemas')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('cluster', '=', this.cluster)
      .executeTakeFirst();
    return Number(row?.id ?? 0) + 1;
  }

  async insertSchema(schema: StoredSchema, fingerprint: string, now: Date): Promise<void> {
    await this.db
      .insertInto('schema_registry_schemas')
      .values({
        cluster: this.cluster,
        id: schema.id,
        schema_type: schema.schemaType,
        schema: schema.schema,
        schema_references: JSON.stringify(schema.references),
        fingerprint,
        created_at: now.toISOString(),
      })
      .execute();
  }

  /** Every version of the subject (or of every subject), oldest first, with its schema. */
  async versions(subject?: string): Promise<SubjectVersion[]> {
    let query = this.db
      .selectFrom('schema_registry_versions as v')
      .innerJoin('schema_registry_schemas as s', (join) =>
        join.onRef('s.cluster', '=', 'v.cluster').onRef('s.id', '=', 'v.schema_id'),
      )
      .select([
        'v.subject',
        'v.version',
        'v.deleted',
        's.id',
        's.schema_type',
        's.schema',
        's.schema_references',
      ])
      .where('v.cluster', '=', this.cluster);
    if (subject !== undefined) query = query.where('v.subject', '=', subject);
    const rows = await query.orderBy('v.subject').orderBy('v.version').execute();
    return rows.map((row) => ({
      ...storedSchema(row),
      subject: row.subject,
      version: row.version,
      deleted: row.deleted === 1,
    }));
  }

  async versionsOfSchema(id: number): Promise<{ subject: string; version: number; deleted: boolean }[]> {
    const rows = await this.db
      .selectFrom('schema_registry_versions')
      .select(['subject', 'version', 'deleted'])
      .where('cluster', '=', this.cluster)
      .where('schema_id', '=', id)
      .orderBy('subject')
      .orderBy('version')
      .execute();
    return rows.map((row) => ({ subject: row.subject, version: row.version, deleted: row.deleted === 1 }));
  }

  async insertVersion(subject: string, version: number, schemaId: number, now: Date): Promise<void> {
    await this.db
      .insertInto('schema_registry_versions')
      .values({
        cluster: this.cluster,
        subject,
        version,
        schema_id: schemaId,
        deleted: 0,
        created_at: now.toISOString(),
      })
      .execute();
  }

  async softDeleteVersions(subject: string, versions: readonly number[]): Promise<void> {
    if (versions.length === 0) return;
    await this.db
      .updateTable('schema_registry_versions')
      .set({ deleted: 1 })
      .where('cluster', '=', this.cluster)
      .where('subject', '=', subject)
      .where('version', 'in', versions)
      .execute();
  }

  async removeVersions(subject: string, versions: readonly number[]): Promise<void> {
    if (versions.length === 0) return;
    await this.db
      .deleteFrom('schema_registry_versions')
      .where('cluster', '=', this.cluster)
      .where('subject', '=', subject)
      .where('version', 'in', versions)
      .execute();
  }

  /** The subject's setting, or the registry's for subject `''`. */
  async setting(subject: string): Promise<{ compatibility: string | null; mode: string | null } | undefined> {
    return this.db
      .selectFrom('schema_registry_settings')
      .select(['compatibility', 'mode'])
      .where('cluster', '=', this.cluster)
      .where('subject', '=', subject)
      .executeTakeFirst();
  }

  async writeSetting(subject: string, change: { compatibility?: string | null; mode?: string | null }) {
    await this.db
      .insertInto('schema_registry_settings')
      .values({
        cluster: this.cluster,
        subject,
        compatibility: change.compatibility ?? null,
        mode: change.mode ?? null,
      })
      .onConflict((conflict) => conflict.columns(['cluster', 'subject']).doUpdateSet(change))
      .execute();
  }

  async removeSetting(subject: string): Promise<void> {
    await this.db
      .deleteFrom('schema_registry_settings')
      .where('cluster', '=', this.cluster)
      .where('subject', '=', subject)
      .execute();
  }

  /**
   * The texts of the schemas `references` name, and of theirs, each before the schemas that
   * reference it. Throws 42201 for a reference to a version that does not exist.
   */
  async resolveReferences(references: readonly SchemaReference[], seen = new Set<string>()) {
    const resolved: ResolvedReference[] = [];
    for (const reference of references) {
      const key = `${reference.subject}\u0000${reference.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const version = (await this.versions(reference.subject)).find(
        (row) => !row.deleted && row.version === reference.version,
      );
      if (!version) {
        throw invalidSchema(
          `the reference '${reference.name}' names subject '${reference.subject}' version ${reference.version}, which does not exist`,
        );
      }
      resolved.push(...(await this.resolveReferences(version.references, seen)));
      resolved.push({ name: reference.name, schema: version.schema });
    }
    return resolved;
  }

  async contentOf(schema: StoredSchema): Promise<SchemaContent> {
    return {
      schemaType: schema.schemaType,
      schema: schema.schema,
      references: schema.references,
      resolvedReferences: await this.resolveReferences(schema.references),
    };
  }
}
