/** Limits of invoice write bodies (README, Invoices). */
export const MAX_LINES = 500;
export const MAX_NOTES_LENGTH = 2000;
export const MAX_DESCRIPTION_LENGTH = 1000;
export const MAX_VOID_REASON_LENGTH = 500;
export const PAYMENT_TERM_DAYS = 14;
export const MIN_DATE = '1900-01-01';
export const MAX_DATE = '2999-12-31';
