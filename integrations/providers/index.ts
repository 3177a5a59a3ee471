/**
 * The integration providers: the one list that the Integration CRD's enum, the REST validation,
 * the type-specific create routes, the connection checks, the tests and the event delivery read.
 * Each provider is one file here (its type, settings, verification, test, events and create) and
 * one line in the list.
 */
import { registerIntegrationType, type IntegrationType } from '../../crds/integration.js';
import { chatProvider } from './chat.js';
import { codehostProvider } from './codehost.js';
import { edgenetProvider } from './edgenet.js';
import { monitorProvider } from './monitor.js';
import { pagerProvider } from './pager.js';
import type { ProviderAdapter } from './provider.js';

/** The adapter of each integration type, as registered. */
export const PROVIDERS = {} as Record<IntegrationType, ProviderAdapter>;

/**
 * Adds a provider; it must be registered before the platform's modules are loaded, since the
 * route schemas are built from the list when they load.
 */
export function registerProvider(provider: ProviderAdapter): void {
  if (PROVIDERS[provider.type]) throw new Error(`integration type ${provider.type} is registered twice`);
  registerIntegrationType(provider.type);
  PROVIDERS[provider.type] = provider;
}

/** In the order of the types' list, which the CRD's enum is. */
for (const provider of [codehostProvider, edgenetProvider, monitorProvider, pagerProvider, chatProvider]) {
  registerProvider(provider);
}

/** The providers in the order they were registered. */
export function providers(): readonly ProviderAdapter[] {
  return Object.values(PROVIDERS);
}

/** Their types, in that order. */
export function providerTypes(): readonly IntegrationType[] {
  return providers().map((provider) => provider.type);
}
