import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signWebhook } from './webhook-signature.js';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const body = JSON.stringify({ id: 'evt', type: 'fin.invoice.created', data: { a: 'ü' } });

describe('signWebhook', () => {
  it('produces Standard Webhooks headers that the standardwebhooks package verifies', () => {
    const key = secret();
    const now = Math.floor(Date.now() / 1000);
    const headers = signWebhook([key], 'msg_1', now, body);
    expect(new Webhook(key).verify(body, headers)).toEqual(JSON.parse(body));
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-timestamp']).toBe(String(now));
  });

  it('signs with both secrets during a rotation, space-separated, and each one verifies', () => {
    const [current, previous] = [secret(), secret()];
    const headers = signWebhook([current, previous], 'msg_2', Math.floor(Date.now() / 1000), body);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const key of [current, previous]) expect(() => new Webhook(key).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(secret()).verify(body, headers)).toThrow();
  });

  it('lays out X-OH-Signature as t=<seconds>,v1=<hex HMAC of "<t>.<body>"> per secret', () => {
    const [current, previous] = [secret(), secret()];
    const headers = signWebhook([current, previous], 'msg_3', 1_700_000_000, body);
    const expected = [current, previous].map((key) =>
      createHmac('sha256', Buffer.from(key.slice('whsec_'.length), 'base64')).update(`1700000000.${body}`).digest('hex'),
    );
    expect(headers['x-oh-signature']).toBe(`t=1700000000,v1=${expected[0]},v1=${expected[1]}`);
  });

  it('fails verification when one byte of the body changes', () => {
    const key = secret();
    const headers = signWebhook([key], 'msg_4', Math.floor(Date.now() / 1000), body);
    expect(() => new Webhook(key).verify(body.replace('ü', 'u'), headers)).toThrow();
  });
});
