import { inRanges, isNumericHost, isPublicIPv4, parseCidr, sameAddress } from './address-classification.js';

describe('address classification', () => {
  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.0', '198.17.255.255', '198.20.0.0', '223.255.255.254'])(
    'treats %s as public',
    (address) => expect(isPublicIPv4(address)).toBe(true),
  );

  it.each([
    '0.0.0.0', '0.255.255.255', '10.0.0.1', '100.64.0.0', '100.127.255.255', '127.0.0.1', '169.254.1.1', '172.31.255.255',
    '192.0.0.1', '192.0.2.1', '192.168.0.1', '198.18.0.0', '198.19.255.255', '198.51.100.1', '203.0.113.1', '224.0.0.1',
    '240.0.0.1', '255.255.255.255', '::1', 'not-an-address', '0x7f.1',
  ])('treats %s as not public', (address) => expect(isPublicIPv4(address)).toBe(false));

  it.each(['127.0.0.1', '[::1]', '0x7f000001', '2130706433', '0177.0.0.1', '1.2.3.4.'])('sees %s as numeric', (host) => expect(isNumericHost(host)).toBe(true));
  it.each(['example.com', 'localhost', 'a1.example', '1.example.com'])('sees %s as a name', (host) => expect(isNumericHost(host)).toBe(false));

  it('matches ranges of the same family only', () => {
    const ranges = [parseCidr('127.0.0.0/8'), parseCidr('fd00::/8')];
    expect(inRanges('127.5.0.1', ranges)).toBe(true);
    expect(inRanges('::ffff:127.0.0.1', ranges)).toBe(true);
    expect(inRanges('fd12::1', ranges)).toBe(true);
    expect(inRanges('128.0.0.1', ranges)).toBe(false);
    expect(inRanges('::1', ranges)).toBe(false);
  });

  it('compares addresses across notations', () => {
    expect(sameAddress('::ffff:1.2.3.4', '1.2.3.4')).toBe(true);
    expect(sameAddress('1.2.3.4', '1.2.3.5')).toBe(false);
  });
});
