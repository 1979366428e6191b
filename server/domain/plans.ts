import { AppError } from './errors.js';
import type { AccountRecord, Plan } from './ports.js';

/** A self-hosted install's plan: generous quotas, every feature on. */
export const SELF_HOSTED_PLAN: Plan = {
  name: 'self-hosted',
  maxChatbots: 1000,
  maxPages: 1_000_000,
  webhooks: true,
  analytics: true,
  brandingRemoval: true,
  active: true,
};

export function requireActive(account: AccountRecord): void {
  if (!account.plan.active) {
    throw new AppError('ACCOUNT_INACTIVE', 'This account is inactive', {
      hint: 'Reactivate the account (an operator runs `cli plan set --active on`); account, usage, billing and token routes still work',
    });
  }
}

export function requireFeature(account: AccountRecord, feature: 'webhooks' | 'analytics' | 'brandingRemoval'): void {
  if (account.plan[feature]) return;
  if (feature === 'webhooks') {
    throw new AppError('WEBHOOKS_NOT_AVAILABLE', 'Webhooks need the webhook add-on or a higher plan', {
      hint: 'Upgrade the plan or add the webhook add-on, then send the request again',
    });
  }
  if (feature === 'analytics') {
    throw new AppError('ANALYTICS_LOCKED', 'Analytics are not part of this plan', {
      hint: 'Upgrade to a plan with analytics',
    });
  }
  throw new AppError('PLAN_UPGRADE_REQUIRED', 'Removing or changing the Parley branding needs a higher plan', {
    hint: 'Upgrade to a plan with branding removal, or leave hideWatermark, watermarkText and watermarkLink unchanged',
  });
}
