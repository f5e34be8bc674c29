/** Where the documentation pages are served (a leaf module: the request pipeline and the document builder both need it). */

/** Swagger UI. */
export const DOCS_PATH = 'docs';

/** The pages the problem `type` URLs name under the default ERRORS_BASE_URL. */
export const PROBLEM_TYPES_PATH = 'errors';

const under = (base: string) => (path: string) => path === `/${base}` || path.startsWith(`/${base}/`);

export const isDocsPath = under(DOCS_PATH);
export const isProblemTypesPath = under(PROBLEM_TYPES_PATH);
