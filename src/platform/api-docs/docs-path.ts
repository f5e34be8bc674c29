/** Where Swagger UI is served (a leaf module: the request pipeline and the document builder both need it). */
export const DOCS_PATH = 'docs';

export function isDocsPath(path: string): boolean {
  return path === `/${DOCS_PATH}` || path.startsWith(`/${DOCS_PATH}/`);
}
