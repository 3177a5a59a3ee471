import { sql, type Kysely } from 'kysely';

/**
 * Integration event forwarding and webhook deliveries. An event row is one platform event bound for
 * one integration; it moves pending → sending (claimed under a lease) → success, or back to failed
 * with its next attempt time, or to dead once the attempts are spent. Every attempt, outbound or
 * inbound, is a row of `webhook_delivery_attempts`; `delivery_id` is unique so a replayed inbound
 * delivery is recognised. Signing secrets are sealed under the integration credentials key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('integration_events')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('organization_id', 'text', (column) => column.notNull())
    .addColumn('integration_id', 'text', (column) => column.notNull())
    .addColumn('event_type', 'text', (column) => column.notNull())
    .addColumn('subject', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('payload', 'text', (column) => column.notNull())
    .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (column) => column.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('created_at', 'text', (column) => column.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('last_error', 'text')
    .addCheckConstraint(
      'integration_events_status_check',
      sql`${sql.ref('status')} in ('pending', 'sending', 'success', 'failed', 'dead')`,
    )
    .execute();
  await db.schema
    .createIndex('integration_events_integration_idx')
    .on('integration_events')
    .columns(['integration_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('integration_events_due_idx')
    .on('integration_events')
    .columns(['status', 'next_attempt_at'])
    .execute();

  await db.schema
    .createTable('webhook_delivery_attempts')
    .addColumn('id', 'text', (column) => column.primaryKey())
    .addColumn('webhook_id', 'text', (column) => column.notNull())
    .addColumn('integration_id', 'text', (column) => column.notNull())
    .addColumn('event', 'text', (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('status_code', 'integer', (column) => column.notNull())
    .addColumn('duration_ms', 'integer', (column) => column.notNull())
    .addColumn('timestamp', 'text', (column) => column.notNull())
    .addColumn('delivery_id', 'text', (column) => column.notNull().unique())
    .addCheckConstraint(
      'webhook_delivery_attempts_status_check',
      sql`${sql.ref('status')} in ('success', 'failed')`,
    )
    .execute();
  await db.schema
    .createIndex('webhook_delivery_attempts_integration_idx')
    .on('webhook_delivery_attempts')
    .columns(['integration_id', 'timestamp'])
    .execute();

  await db.schema
    .createTable('integration_signing_secrets')
    .addColumn('integration_id', 'text', (column) => column.primaryKey())
    .addColumn('sealed_secret', 'text', (column) => column.notNull())
    .addColumn('created_at', 'text', (column) => column.notNull())
    .execute();
}
