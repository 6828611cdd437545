import { adminTokenLine } from '../../services/all-in-one/banner.js';

/** The admin token's line of `npm start`'s banner: whole only where nothing else holds it. */
describe("the banner's admin token", () => {
  const token = 'Zk3pQ8sV1wXyLmN0aBcDeFgHiJ';

  test('generated and kept: its first characters and the file that holds it', () => {
    const line = adminTokenLine(token, {
      adminTokenFile: '/srv/data/admin-token',
      adminTokenFromSettings: false,
    });
    expect(line).toBe('Zk3p…   (kept in /srv/data/admin-token)');
    expect(line).not.toContain(token);
  });

  test('from ADMIN_TOKENS: its first characters, and where it comes from', () => {
    const line = adminTokenLine(token, { adminTokenFile: null, adminTokenFromSettings: true });
    expect(line).toBe('Zk3p…   (from ADMIN_TOKENS)');
  });

  test('generated for this run alone: whole, as nothing else holds it', () => {
    const line = adminTokenLine(token, { adminTokenFile: null, adminTokenFromSettings: false });
    expect(line).toBe(`${token}   (this run only: nothing is kept)`);
  });
});
