import { describe, expect, it } from 'vitest';
import { ID_PREFIXES, newRestId, objectNameOf, restIdOf, workloadIdOf } from '../../crds/ids.js';

describe('REST ids and object names', () => {
  it.each(ID_PREFIXES)('a new %s id maps to a hyphenated object name and back', (prefix) => {
    const id = newRestId(prefix);
    expect(id).toMatch(new RegExp(`^${prefix}_[0-9a-f]{12}$`));
    const name = objectNameOf(id);
    expect(name).toBe(id.replace('_', '-'));
    expect(restIdOf(name)).toBe(id);
  });

  it.each([
    ['a name chosen with kubectl', 'orders', 'orders'],
    ['an id with capitals', 'db_0A1B2C3D4E5F', 'db_0A1B2C3D4E5F'],
    ['an id too short', 'db_0a1b', 'db_0a1b'],
    ['an id too long', 'db_0a1b2c3d4e5f6', 'db_0a1b2c3d4e5f6'],
    ['an unknown prefix', 'xyz_0a1b2c3d4e5f', 'xyz_0a1b2c3d4e5f'],
    ['an underscore elsewhere', 'my_db', 'my_db'],
    ['a path', 'db_0a1b2c3d4e5f/x', 'db_0a1b2c3d4e5f/x'],
  ])('%s is not mapped to an object name (%s)', (_case, id, name) => {
    expect(objectNameOf(id)).toBe(name);
  });

  it.each([
    ['a name chosen with kubectl', 'orders'],
    ['a hyphenated name of another shape', 'db-orders'],
    ['an unknown prefix', 'xyz-0a1b2c3d4e5f'],
  ])('%s keeps its name as its REST id', (_case, name) => {
    expect(restIdOf(name)).toBe(name);
  });

  it('names a workload after the REST id of an object the API made', () => {
    expect(workloadIdOf('db', 'org-a', 'db-0a1b2c3d4e5f')).toBe('db_0a1b2c3d4e5f');
  });

  it('names a kubectl-made object after a digest of namespace and name, per organization', () => {
    const a = workloadIdOf('db', 'org-a', 'orders');
    const b = workloadIdOf('db', 'org-b', 'orders');
    expect(a).toMatch(/^db_[0-9a-f]{12}$/);
    expect(b).toMatch(/^db_[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
    expect(workloadIdOf('db', 'org-a', 'orders')).toBe(a);
  });

  it('does not take another family’s id as a workload id of this one', () => {
    expect(workloadIdOf('nfs', 'org-a', 'db-0a1b2c3d4e5f')).toMatch(/^nfs_[0-9a-f]{12}$/);
  });
});
