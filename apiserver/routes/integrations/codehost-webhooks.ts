/**
 * `POST /webhooks/codehost/<integration id>`: deliveries from the code host. The signature is the
 * authentication, and it covers the exact bytes sent, so this is a router of its own reading the
 * raw body rather than a declared route (those get the body parsed). Every delivery, refused or
 * not, is recorded as a delivery attempt; a delivery id seen before is answered but not processed.
 */
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { readCredentials } from '../../../integrations/credentials.js';
import { recordAttempt } from '../../../integrations/events/event-records.js';
import { codehostSignatureValid } from '../../../integrations/events/signatures.js';
import { codehostSubscriptions, codehostWebhookId } from '../../../integrations/events/webhooks.js';
import { isStoreError, type ObjectStore } from '../../../control-plane/types.js';
import { INTEGRATION, type Integration } from '../../../crds/integration.js';
import type { DataPlane } from '../../../data-plane/data-plane.js';
import { badRequest, notFound, payloadTooLarge, unauthorized, unprocessable } from '../../errors.js';

export const CODEHOST_WEBHOOK_PATH = '/webhooks/codehost';

/** An accepted delivery, handed on once per delivery id. */
export interface CodehostDelivery {
  integration: Integration;
  deliveryId: string;
  event: string;
  payload: unknown;
}

export interface CodehostWebhookDependencies {
  store: ObjectStore;
  database: DataPlane;
  platformKey: Buffer;
  now: () => Date;
  bodyLimitBytes: number;
  /** What an accepted delivery does; a throw makes the delivery fail so the code host retries it. */
  onDelivery?: (delivery: CodehostDelivery) => Promise<void>;
}

async function findIntegration(
  deps: CodehostWebhookDependencies,
  id: string,
): Promise<Integration | undefined> {
  const row = await deps.database.kysely
    .selectFrom('integration_credentials')
    .select('namespace')
    .where('integration_id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  try {
    const integration = await deps.store.get<Integration>(INTEGRATION, row.namespace, id);
    return integration.spec?.type === 'codehost' && !integration.metadata.deletionTimestamp
      ? integration
      : undefined;
  } catch (error) {
    if (isStoreError(error, 'NotFound')) return undefined;
    throw error;
  }
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The router to mount at `CODEHOST_WEBHOOK_PATH`. */
export function codehostWebhookRouter(deps: CodehostWebhookDependencies): express.Router {
  const router = express.Router();
  const rawBody = express.raw({ type: () => true, limit: deps.bodyLimitBytes });

  async function receive(req: Request<{ id: string }>, res: Response): Promise<void> {
    const started = performance.now();
    const integration = await findIntegration(deps, req.params.id);
    if (!integration) throw notFound(`no code host integration ${req.params.id}`);
    const event = header(req, 'x-github-event');
    const deliveryId = header(req, 'x-github-delivery');
    const attempt = (status: 'success' | 'failed', statusCode: number, delivery: string) =>
      recordAttempt(deps.database, {
        webhook_id: codehostWebhookId(integration),
        integration_id: integration.metadata.name,
        event: event ?? 'unknown',
        status,
        status_code: statusCode,
        duration_ms: Math.round(performance.now() - started),
        timestamp: deps.now().toISOString(),
        delivery_id: delivery,
      });
    // A refused delivery is recorded under an id of its own: a forged request naming a real
    // delivery id must not make the genuine delivery look like a replay.
    const refused = (statusCode: number) => attempt('failed', statusCode, `refused-${randomUUID()}`);

    const credentials = await readCredentials(deps.database, deps.platformKey, integration.metadata.name);
    const secret = credentials?.webhook_secret;
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!secret || !codehostSignatureValid(secret, body, header(req, 'x-hub-signature-256'))) {
      await refused(401);
      throw unauthorized('X-Hub-Signature-256 is missing or is not the signature of this payload', {
        code: 'invalid_signature',
      });
    }
    if (!event || !deliveryId) {
      await refused(400);
      throw badRequest('a delivery needs the X-GitHub-Event and X-GitHub-Delivery headers');
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      await refused(400);
      throw badRequest('the payload is not JSON', { code: 'invalid_json' });
    }
    if (event === 'ping') {
      await attempt('success', 200, `codehost-${deliveryId}`);
      res.status(200).json({ status: 'pong', delivery_id: deliveryId });
      return;
    }
    const subscribed = codehostSubscriptions(integration);
    if (!subscribed.includes(event)) {
      await refused(422);
      throw unprocessable(
        `this integration is not subscribed to ${event} events; it takes ${subscribed.join(', ') || 'none'}`,
        { details: { event, subscribed } },
      );
    }
    const recordedId = `codehost-${deliveryId}`;
    if (!(await attempt('success', 200, recordedId))) {
      res.status(200).json({ status: 'duplicate', delivery_id: deliveryId });
      return;
    }
    try {
      await deps.onDelivery?.({ integration, deliveryId, event, payload });
    } catch (error) {
      await deps.database.kysely
        .deleteFrom('webhook_delivery_attempts')
        .where('delivery_id', '=', recordedId)
        .execute();
      await refused(500);
      throw error;
    }
    res.status(200).json({ status: 'accepted', delivery_id: deliveryId });
  }

  router.post('/:id', (req: Request<{ id: string }>, res: Response, next: NextFunction) => {
    rawBody(req, res, (error?: unknown) => {
      if (error !== undefined) {
        const tooLarge = (error as { type?: string }).type === 'entity.too.large';
        next(tooLarge ? payloadTooLarge(deps.bodyLimitBytes) : error);
        return;
      }
      receive(req, res).catch(next);
    });
  });
  return router;
}
