import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A cursor marks a position in a newest-first list: the created_at (to the microsecond, as
 * PostgreSQL text) and id of the last item of the previous page. It is opaque to clients:
 * base64url JSON plus an HMAC over the list's name, so a tampered or foreign cursor is refused.
 */
export interface CursorPosition {
  createdAt: string;
  id: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_CURSOR_LENGTH = 512;

export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(list: string, position: CursorPosition): string {
    const payload = Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
    return `${payload}.${this.sign(list, payload).toString('base64url')}`;
  }

  /** The position, or null when the cursor is unreadable, tampered with or from another list. */
  decode(list: string, cursor: string): CursorPosition | null {
    if (cursor.length > MAX_CURSOR_LENGTH) return null;
    const [payload, signature, ...rest] = cursor.split('.');
    if (!payload || !signature || rest.length > 0) return null;
    const expected = this.sign(list, payload);
    const given = Buffer.from(signature, 'base64url');
    // Node's base64 decoding skips characters outside the alphabet and padding, so `sig!!` or
    // `sig==` would read as `sig`: only the signature's one spelling is the cursor handed out.
    if (given.toString('base64url') !== signature) return null;
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const value: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (!Array.isArray(value) || value.length !== 2) return null;
      const [createdAt, id] = value as unknown[];
      if (typeof createdAt !== 'string' || !TIMESTAMP.test(createdAt) || typeof id !== 'string' || !UUID.test(id)) return null;
      return { createdAt, id };
    } catch {
      return null;
    }
  }

  private sign(list: string, payload: string): Buffer {
    return createHmac('sha256', this.secret).update(`${list}\n${payload}`).digest().subarray(0, 16);
  }
}
