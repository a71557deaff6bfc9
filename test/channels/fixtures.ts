// Messages shared by the channel tests (plain data, no I/O).
import type { ChannelUrls } from '../../src/config/index.js';
import type { Outgoing } from '../../src/domain/notification.js';

export const event: Outgoing = {
  kind: 'event',
  event_id: '11111111-1111-4111-8111-111111111111',
  event_type: 'exposure',
  severity: 'high',
  category: 'subdomain_takeover',
  team: 'acme',
  user: 'ops@acme.test',
  domain_id: '22222222-2222-4222-8222-222222222222',
  domain: 'example.com',
  endpoint_id: '33333333-3333-4333-8333-333333333333',
  endpoint_name: 'api',
  details: { provider: 'heroku', remediation: 'remove the dangling CNAME' },
  message: 'Dangling CNAME "old.example.com" <points> to an unclaimed app & can be taken over',
  timestamp: '2026-03-02T10:00:00.000Z',
};

export const digest: Outgoing = {
  kind: 'digest',
  digest_id: '44444444-4444-4444-8444-444444444444',
  team: 'acme',
  user: 'ops@acme.test',
  from: '2026-03-01T09:00:00.000Z',
  to: '2026-03-02T09:00:00.000Z',
  groups: [
    {
      portfolio: 'Production',
      items: [(({ kind: _k, ...rest }) => rest)(event as Extract<Outgoing, { kind: 'event' }>)],
    },
    {
      portfolio: null,
      items: [
        {
          event_id: '55555555-5555-4555-8555-555555555555',
          event_type: 'ssl_expiry',
          severity: 'medium',
          category: null,
          team: 'acme',
          user: 'ops@acme.test',
          domain_id: null,
          domain: 'other.test',
          endpoint_id: null,
          endpoint_name: null,
          details: {},
          message: 'certificate expires in 14 days',
          timestamp: '2026-03-01T12:00:00.000Z',
        },
      ],
    },
  ],
};

/** Provider bases for a SendContext: a dead loopback port unless a test names its peer. */
export function urls(over: Partial<Record<keyof ChannelUrls, string>> = {}): ChannelUrls {
  const dead = 'http://127.0.0.1:1';
  return { pushover: dead, telegram: dead, ntfy: dead, pagerduty: dead, opsgenie: dead, ...over };
}
