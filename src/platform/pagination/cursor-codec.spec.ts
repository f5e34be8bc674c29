import fc from 'fast-check';
import { CursorCodec } from './cursor-codec.js';

const codec = new CursorCodec('a-test-secret-that-is-long-enough-for-hmac');
const position = { createdAt: '2026-11-22T01:02:03.456789', id: '0b7c6c1e-6a55-4d0e-9d7c-0f4c6a1e2b3c' };

describe('CursorCodec', () => {
  it('round-trips a position', () => {
    expect(codec.decode('invoices', codec.encode('invoices', position))).toEqual(position);
  });

  it('is opaque: the cursor does not show the id in clear text', () => {
    expect(codec.encode('invoices', position)).not.toContain(position.id);
  });

  it('refuses a cursor of another list or another secret', () => {
    const cursor = codec.encode('invoices', position);
    expect(codec.decode('bills', cursor)).toBeNull();
    expect(new CursorCodec('another-secret-that-is-long-enough-too').decode('invoices', cursor)).toBeNull();
  });

  it('refuses a cursor with any character changed, even one that decodes to the same bytes', () => {
    const cursor = codec.encode('invoices', position);
    fc.assert(
      fc.property(fc.nat(cursor.length - 1), fc.string({ minLength: 1, maxLength: 1 }), (index, char) => {
        fc.pre(cursor[index] !== char);
        return codec.decode('invoices', cursor.slice(0, index) + char + cursor.slice(index + 1)) === null;
      }),
    );
  });

  it('refuses a cursor with characters added, which base64 decoding would skip', () => {
    const cursor = codec.encode('invoices', position);
    const [payload, signature] = cursor.split('.');
    for (const tampered of [`${cursor}!!`, `${cursor}==`, `${cursor}\u0000`, `${payload}.${signature.slice(0, 5)}!!${signature.slice(5)}`, `${payload}.${signature} `]) {
      expect(codec.decode('invoices', tampered)).toBeNull();
    }
    fc.assert(
      fc.property(fc.nat(cursor.length), fc.string({ minLength: 1, maxLength: 8 }), (index, added) =>
        codec.decode('invoices', cursor.slice(0, index) + added + cursor.slice(index)) === null,
      ),
    );
  });

  it('refuses a re-signed payload without the secret', () => {
    const forgedPayload = Buffer.from(JSON.stringify([position.createdAt, 'ffffffff-6a55-4d0e-9d7c-0f4c6a1e2b3c'])).toString('base64url');
    const signature = codec.encode('invoices', position).split('.')[1];
    expect(codec.decode('invoices', `${forgedPayload}.${signature}`)).toBeNull();
  });

  it('never throws on arbitrary input', () => {
    fc.assert(fc.property(fc.string({ maxLength: 600 }), (text) => codec.decode('invoices', text) === null));
  });
});
