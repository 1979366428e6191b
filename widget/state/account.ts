/** The visitor as the server knows them, and verifying an e-mail with a one-time code. */
import { batch, signal } from '@preact/signals';
import type { VerifiedFrame, VisitorInfo } from '../../shared/protocol.js';
import type { ConnectionModel } from './connection.js';
import type { SessionStore } from './session-store.js';

export type OtpStage = 'details' | 'code';
export interface Otp {
  stage: OtpStage;
  email: string;
  name: string;
  phone: string;
  resendAt: number;
  busy: boolean;
  error: string | null;
}

export class AccountModel {
  readonly visitor = signal<VisitorInfo | null>(null);
  readonly otp = signal<Otp>({
    stage: 'details',
    email: '',
    name: '',
    phone: '',
    resendAt: 0,
    busy: false,
    error: null,
  });

  constructor(
    private readonly connection: ConnectionModel,
    private readonly session: SessionStore,
  ) {}

  requestOtp(details: { email: string; name: string; phone: string }) {
    this.otp.value = { ...this.otp.value, ...details, busy: true, error: null };
    this.connection.send({
      type: 'otp.request',
      email: details.email,
      ...(details.name ? { name: details.name } : {}),
      ...(details.phone ? { phone: details.phone } : {}),
    });
    this.connection.connect();
  }

  verifyOtp(code: string) {
    this.otp.value = { ...this.otp.value, busy: true, error: null };
    this.connection.send({ type: 'otp.verify', email: this.otp.value.email, code: code.trim() });
  }

  editOtpDetails() {
    this.otp.value = { ...this.otp.value, stage: 'details', error: null, busy: false };
  }

  logout() {
    this.connection.send({ type: 'logout' });
  }

  // ---- frames -------------------------------------------------------------------------------

  known(visitor: VisitorInfo | null) {
    this.visitor.value = visitor;
  }

  otpSent(resendAfter: number) {
    this.otp.value = {
      ...this.otp.value,
      stage: 'code',
      busy: false,
      error: null,
      resendAt: Date.now() + resendAfter * 1000,
    };
  }

  /** The session now belongs to the verified visitor: reconnect with its token. */
  verified(frame: VerifiedFrame) {
    this.session.write({ token: frame.token, expiresAt: frame.expiresAt });
    batch(() => {
      this.visitor.value = frame.visitor;
      this.otp.value = { ...this.otp.value, stage: 'details', busy: false, error: null };
    });
    this.connection.reconnect();
  }

  otpRefused(message: string) {
    this.otp.value = { ...this.otp.value, busy: false, error: message };
  }
}
