<?php

namespace Licensing\Tests\System;

use Licensing\LicensingException;

/** Spec 4.1 to 4.3 through the PHP client against the real system, every answer verified. */
final class LicenseOperationsTest extends SystemTestCase
{
    public function testActivateValidateAndDeactivateAnIdentifier(): void
    {
        $client = $this->client();
        $key = self::setting('LICENSE_KEY');
        $host = self::identifier('site');
        $activation = $client->activate($key, 'https://www.' . $host . '/shop/');
        $this->assertSame($host, $activation->identifier);
        $this->assertSame('active', $activation->status);
        $this->assertSame($key, $activation->license_key);
        $this->assertSame('PHP Client Plugin', $activation->product);
        $this->assertSame('domain', $activation->activation_type);
        $this->assertSame(3, $activation->activation_limit);
        $this->assertGreaterThanOrEqual(1, $activation->activations_used);
        $this->assertSame($activation->toArray(), $client->activate($key, $host)->toArray(), 'activate is idempotent');

        $validation = $client->validate($key, $host);
        $this->assertTrue($validation->valid);
        $this->assertTrue($validation->identifier_activated);
        $this->assertSame('active', $validation->status);
        $this->assertFalse($validation->isStale());

        $removed = $client->deactivate($key, $host);
        $this->assertSame($activation->activations_used - 1, $removed->activations_used);
        $after = $client->validate($key, $host);
        $this->assertTrue($after->valid);
        $this->assertFalse($after->identifier_activated);
    }

    public function testAValidationWithoutAnIdentifierAsksAboutTheLicenseAlone(): void
    {
        $validation = $this->client()->validate(self::setting('LICENSE_KEY'));
        $this->assertTrue($validation->valid);
        $this->assertTrue($validation->identifier_activated);
    }

    public function testAWrongKeyIsLicenseInvalidOnActivateAndNotValidOnValidate(): void
    {
        $client = $this->client();
        $refusal = $this->refusal(function () use ($client) {
            $client->activate('0123456789abcdef0123456789abcdef', 'example.com');
        });
        $this->assertSame('LICENSE_INVALID', $refusal->getErrorCode());
        $this->assertSame(403, $refusal->getHttpStatus());
        $this->assertTrue($refusal->isLicenseProblem());
        $this->assertNotSame('', $refusal->getMessage());

        $validation = $client->validate('0123456789abcdef0123456789abcdef', 'example.com');
        $this->assertFalse($validation->valid);
        $this->assertSame('invalid', $validation->status);
        $this->assertFalse($validation->identifier_activated);
    }

    public function testAKeyOfAnotherProductIsProductMismatch(): void
    {
        $client = $this->client([], (int) self::setting('OTHER_PRODUCT_ID'));
        $refusal = $this->refusal(function () use ($client) {
            $client->validate(self::setting('LICENSE_KEY'));
        });
        $this->assertSame('PRODUCT_MISMATCH', $refusal->getErrorCode());
        $this->assertTrue($refusal->isLicenseProblem());
    }

    public function testAMissingIdentifierIsInvalidRequest(): void
    {
        $client = $this->client();
        $refusal = $this->refusal(function () use ($client) {
            $client->activate(self::setting('LICENSE_KEY'), '');
        });
        $this->assertSame('INVALID_REQUEST', $refusal->getErrorCode());
        $this->assertSame(400, $refusal->getHttpStatus());
        $this->assertFalse($refusal->isLicenseProblem());
        $this->assertFalse($refusal->isTransient());
    }

    public function testAnswersSignedByTheServerFailAgainstAnotherPinnedKey(): void
    {
        $pair = sodium_crypto_sign_keypair();
        $x = rtrim(strtr(base64_encode(sodium_crypto_sign_publickey($pair)), '+/', '-_'), '=');
        $other = ['keys' => [['kty' => 'OKP', 'crv' => 'Ed25519', 'x' => $x, 'kid' => \Licensing\Verification\PinnedKeys::thumbprint($x)]]];
        $client = $this->client(['keys' => $other]);
        $refusal = $this->refusal(function () use ($client) {
            $client->validate(self::setting('LICENSE_KEY'));
        });
        $this->assertSame(LicensingException::SIGNATURE_INVALID, $refusal->getErrorCode());
        $this->assertStringContainsString('not pinned', $refusal->getMessage());
    }
}
