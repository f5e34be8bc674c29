/**
 * The path of a member in a request body, as problems name it (`errors[].path`, `field`):
 * `lines` + 0 → `lines[0]`; `` + `qty` → `qty`; `lines[0]` + `qty` → `lines[0].qty`.
 */
export function memberPath(parent: string, member: string | number): string {
  if (typeof member === 'number') return `${parent}[${member}]`;
  return parent === '' ? member : `${parent}.${member}`;
}
