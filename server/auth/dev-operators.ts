// What the development issuer is, in names: its path under the API, the console's client
// id, the seeded operators and their shared password, the step-up acr. Read by the light
// mount (dev-oidc.ts), by the provider it loads on demand (dev-oidc-provider.ts), and by
// the specs and the browser harness that sign in.

export const devOidcPath = '/oidc';
export const consoleClientId = 'satang-console';
export const devOperatorPassword = 'satang-dev';
export const stepUpAcr = 'step-up';

export interface DevOperator {
  readonly sub: string;
  readonly name: string;
  readonly roles: readonly string[];
}

/** The operators the development issuer knows; every one signs in with devOperatorPassword. */
export const devOperators: readonly DevOperator[] = [
  { sub: 'emp_ploy', name: 'Ploy (reviewer)', roles: ['reviewer'] },
  { sub: 'emp_krit', name: 'Krit (reviewer)', roles: ['reviewer'] },
  { sub: 'emp_nok', name: 'Nok (approver)', roles: ['approver'] },
  { sub: 'emp_anan', name: 'Anan (approver)', roles: ['approver'] },
  { sub: 'emp_mali', name: 'Mali (ops_admin)', roles: ['ops_admin'] },
  { sub: 'emp_fah', name: 'Fah (finance)', roles: ['finance'] },
  { sub: 'emp_ton', name: 'Ton (support)', roles: ['support'] },
  { sub: 'emp_lead', name: 'Lead (every role)', roles: ['reviewer', 'approver', 'ops_admin', 'finance', 'support'] },
];
