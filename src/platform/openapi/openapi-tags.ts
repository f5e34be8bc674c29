/** The platform's own tags; each feature's manifest describes the tags of its routes. */
const PLATFORM_TAGS: Readonly<Record<string, string>> = {
  Specification: 'This OpenAPI document.',
};

/**
 * Declares every tag the document uses, in paths and in the top-level `webhooks` map, with its
 * description (the platform's, or `featureTags`). A tag without one is declared without, and the
 * OpenAPI e2e test fails until its feature describes it. Run last, after anything that adds
 * operations.
 */
export function declareTags<T extends { paths?: object; webhooks?: object; tags?: { name: string; description?: string }[] }>(
  document: T,
  featureTags: Readonly<Record<string, string>>,
): T {
  const descriptions: Record<string, string> = { ...featureTags, ...PLATFORM_TAGS };
  const used = new Set<string>();
  for (const item of [...Object.values(document.paths ?? {}), ...Object.values(document.webhooks ?? {})] as Record<string, { tags?: string[] }>[]) {
    for (const operation of Object.values(item)) for (const tag of operation?.tags ?? []) used.add(tag);
  }
  document.tags = [...used].sort().map((name) => (descriptions[name] ? { name, description: descriptions[name] } : { name }));
  return document;
}
