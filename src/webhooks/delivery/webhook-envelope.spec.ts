import { CURRENT_API_VERSION } from '../../platform/versioning/api-version.js';
import { deliveryApiVersion, renderEnvelope } from './webhook-envelope.js';

const event = { id: '5d2b1f7e-0d0a-4c55-9d43-1a3f4b5c6d7e', type: 'fin.invoice.created' as const, created_at: '2026-05-16T10:00:00.000Z', data: { id: 'x' } };

describe('webhook envelope', () => {
  it('renders id, type, created_at, api_version and data', () => {
    expect(JSON.parse(renderEnvelope(event, CURRENT_API_VERSION))).toEqual({ ...event, api_version: CURRENT_API_VERSION });
  });

  it('marks a test event with test: true, before data, and no other event', () => {
    expect(renderEnvelope({ ...event, test: true }, CURRENT_API_VERSION)).toBe(
      `{"id":"${event.id}","type":"fin.invoice.created","created_at":"${event.created_at}","api_version":"${CURRENT_API_VERSION}","test":true,"data":{"id":"x"}}`,
    );
    expect(renderEnvelope(event, CURRENT_API_VERSION)).not.toContain('"test"');
  });

  it('is byte-identical for the same event and version (replays repeat the body)', () => {
    expect(renderEnvelope(event, CURRENT_API_VERSION)).toBe(renderEnvelope({ ...event }, CURRENT_API_VERSION));
  });

  it('uses the pinned version when it is supported, else the current one', () => {
    expect(deliveryApiVersion(CURRENT_API_VERSION)).toBe(CURRENT_API_VERSION);
    expect(deliveryApiVersion(null)).toBe(CURRENT_API_VERSION);
  });
});
