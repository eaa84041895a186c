/** Who is calling, as every layer sees it: the key's identity, role and the vaults it reaches. */
export type Role = 'member' | 'manager';

/** Who is calling: what every data call is limited by. */
export interface Principal {
  keyId: string;
  name: string;
  role: Role;
  allVaults: boolean;
  vaultIds: ReadonlySet<string>;
}
