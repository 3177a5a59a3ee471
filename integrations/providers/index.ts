import type { IntegrationType } from '../../crds/integration.js';
import { chatProvider } from './chat.js';
import { codehostProvider } from './codehost.js';
import { edgenetProvider } from './edgenet.js';
import { monitorProvider } from './monitor.js';
import { pagerProvider } from './pager.js';
import type { ProviderAdapter } from './provider.js';

/** The adapter of each integration type. */
export const PROVIDERS: Record<IntegrationType, ProviderAdapter> = {
  codehost: codehostProvider,
  edgenet: edgenetProvider,
  monitor: monitorProvider,
  pager: pagerProvider,
  chat: chatProvider,
};
