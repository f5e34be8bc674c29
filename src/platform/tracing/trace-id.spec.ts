import { traceIdFrom } from './trace-id.js';

describe('traceIdFrom', () => {
  it('reuses the trace-id of a valid traceparent', () => {
    expect(traceIdFrom('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('reads a later version up to its further fields', () => {
    expect(traceIdFrom('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(traceIdFrom('cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it.each([
    undefined,
    '',
    'garbage',
    '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    ['a', 'b'],
    // Version ff is invalid, a parent-id of zeros too, hex is lower-case, and version 00 has four fields.
    'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
    '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
    '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01extra',
  ])(
    'makes a fresh id for %p',
    (header) => {
      const id = traceIdFrom(header as never);
      expect(id).toMatch(/^[\da-f]{32}$/);
      // Not the header's trace-id, in any case.
      if (typeof header === 'string') expect(header.toLowerCase()).not.toContain(id);
    },
  );
});
