import { transition } from './webhook-endpoint-state.js';

const active = { status: 'active', disabledReason: null } as const;
const paused = { status: 'paused', disabledReason: null } as const;
const revoked = { status: 'paused', disabledReason: 'api_key_revoked' } as const;
const autoDisabled = { status: 'disabled', disabledReason: 'auto_consecutive_failures' } as const;
const deleted = { status: 'disabled', disabledReason: 'user_deleted' } as const;

describe('webhook endpoint transitions', () => {
  it('pauses an active endpoint without a reason and leaves a paused one as it is', () => {
    expect(transition(active, 'pause')).toEqual({ kind: 'move', to: paused, takesQuotaPlace: false, needsActiveOwner: false });
    expect(transition(revoked, 'pause')).toEqual({ kind: 'unchanged' });
  });

  it('pausing an auto-disabled endpoint keeps its reason and takes a quota place', () => {
    expect(transition(autoDisabled, 'pause')).toEqual({
      kind: 'move',
      to: { status: 'paused', disabledReason: 'auto_consecutive_failures' },
      takesQuotaPlace: true,
      needsActiveOwner: false,
    });
  });

  it('resumes paused endpoints with an active owner, auto-disabled ones also with quota room', () => {
    expect(transition(revoked, 'resume')).toEqual({ kind: 'move', to: active, takesQuotaPlace: false, needsActiveOwner: true });
    expect(transition(autoDisabled, 'resume')).toEqual({ kind: 'move', to: active, takesQuotaPlace: true, needsActiveOwner: true });
    expect(transition(active, 'resume')).toEqual({ kind: 'unchanged' });
  });

  it('deletes from every live state, and a deleted endpoint is gone for every action', () => {
    for (const from of [active, paused, revoked, autoDisabled]) {
      expect(transition(from, 'delete')).toMatchObject({ kind: 'move', to: { status: 'disabled', disabledReason: 'user_deleted' } });
    }
    for (const action of ['pause', 'resume', 'delete'] as const) expect(transition(deleted, action)).toEqual({ kind: 'gone' });
  });
});
