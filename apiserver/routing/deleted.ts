/**
 * The rule of a DELETE answered 204: it is done. An object whose deletion has begun is gone to
 * the API — a GET of it is a 404, lists leave it out, nothing can be done under it — even while
 * its finalizers still clean up behind it. (The one family whose cleanup a user watches,
 * organizations, answers 202 and shows `status: deleting` instead.)
 */
export function isDeleted(object: { metadata: { deletionTimestamp?: string } }): boolean {
  return object.metadata.deletionTimestamp !== undefined;
}

/** The objects of a list that are not deleted, in their order. */
export function withoutDeleted<T extends { metadata: { deletionTimestamp?: string } }>(
  items: readonly T[],
): T[] {
  return items.filter((item) => !isDeleted(item));
}
