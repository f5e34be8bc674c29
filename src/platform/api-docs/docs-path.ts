/** Where the documentation pages are served (a leaf module: the request pipeline and the document builder both need it). */

/** Swagger UI. */
export const DOCS_PATH = 'docs';

export function isDocsPath(path: string): boolean {
  return path === `/${DOCS_PATH}` || path.startsWith(`/${DOCS_PATH}/`);
}

/** The pages the problem `type` URLs name under the default ERRORS_BASE_URL. */
export const PROBLEM_TYPES_PATH = 'errors';

export function isProblemTypesPath(path: string): boolean {
  return path === `/${PROBLEM_TYPES_PATH}` || path.startsWith(`/${PROBLEM_TYPES_PATH}/`);
}
