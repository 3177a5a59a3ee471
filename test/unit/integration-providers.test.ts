import { expect, it } from 'vitest';
import { INTEGRATION_TYPES } from '../../crds/integration.js';
import { providerTypes } from '../../integrations/providers/index.js';

it('has a provider for each type of the list the CRD enum is, in its order, and none beyond it', () => {
  expect(providerTypes()).toEqual(INTEGRATION_TYPES);
});
