<?php

namespace Licensing\Tests\Vectors;

use Licensing\LicensingClient;
use Licensing\LicensingException;
use Licensing\Tests\Support\FakeTransport;
use Licensing\Verification\AnswerVerifier;
use Licensing\Verification\PinnedKeys;
use Licensing\Verification\SignedAnswer;
use PHPUnit\Framework\TestCase;

/**
 * The signature vectors both clients must pass (libs/signatures/vectors/signature-vectors.json,
 * which test/client/signature-vectors.test.ts checks against libs/signatures and the TypeScript
 * client): the PHP client trusts and refuses each answer and license file as the vector says.
 */
final class SignatureVectorsTest extends TestCase
{
    /** @return array<string, mixed> */
    private static function vectors(): array
    {
        $file = getenv('LICENSING_SIGNATURE_VECTORS') ?: dirname(__DIR__, 3) . '/signatures/vectors/signature-vectors.json';
        if (!is_file($file)) {
            throw new \RuntimeException('The signature vectors are not at ' . $file . ' (set LICENSING_SIGNATURE_VECTORS).');
        }
        $vectors = json_decode((string) file_get_contents($file), true);
        if (!is_array($vectors)) {
            throw new \RuntimeException('The signature vectors cannot be read: ' . $file);
        }
        return $vectors;
    }

    /** @return array<string, array{0: array<string, mixed>}> */
    public function answers(): array
    {
        $cases = [];
        foreach (self::vectors()['answers'] as $vector) {
            $cases[$vector['name'] . ' (' . $vector['expect'] . ')'] = [$vector];
        }
        return $cases;
    }

    /** @return array<string, array{0: array<string, mixed>}> */
    public function licenseFiles(): array
    {
        $cases = [];
        foreach (self::vectors()['license_files'] as $vector) {
            $cases[$vector['name'] . ' (' . $vector['expect'] . ')'] = [$vector];
        }
        return $cases;
    }

    public function testTheVectorsHoldAnswersAndLicenseFilesOfEachKind(): void
    {
        $vectors = self::vectors();
        $refused = array_column(array_filter($vectors['answers'], static function (array $v): bool {
            return $v['expect'] === 'refuse';
        }), 'name');
        foreach (['tampered-body', 'moved-nonce', 'other-nonce', 'other-key', 'wrong-digest', 'expired'] as $name) {
            $this->assertContains($name, $refused);
        }
        $files = array_column($vectors['license_files'], 'name');
        foreach (['good', 'tampered', 'other-key', 'expired-lease'] as $name) {
            $this->assertContains($name, $files);
        }
    }

    /**
     * @dataProvider answers
     * @param array<string, mixed> $vector
     */
    public function testThePhpClientTrustsOrRefusesEachSignedAnswerAsTheVectorSays(array $vector): void
    {
        $vectors = self::vectors();
        $request = $vector['request'];
        $response = $vector['response'];
        $answer = new SignedAnswer(
            $request['method'],
            $request['url'],
            $request['nonce'],
            $request['content_digest'],
            $response['status'],
            $response['headers'],
            $response['body']
        );
        if ($request['body'] !== null) {
            $this->assertSame($request['content_digest'], AnswerVerifier::contentDigest($request['body']));
        }
        $verified = AnswerVerifier::verify(
            PinnedKeys::fromOption($vectors['keys']),
            $answer,
            (float) $vector['now'],
            (float) $vectors['clock_tolerance']
        );
        if ($vector['expect'] === 'accept') {
            $this->assertSame($vector['created'], $verified, $vector['why']);
        } else {
            $this->assertIsString($verified, $vector['why'] . ': it was accepted');
        }
    }

    /**
     * @dataProvider licenseFiles
     * @param array<string, mixed> $vector
     */
    public function testThePhpClientAcceptsOrRefusesEachLicenseFileAsTheVectorSays(array $vector): void
    {
        $vectors = self::vectors();
        $client = new LicensingClient('http://offline.invalid', $vector['product_id'], [
            'keys' => json_encode($vectors['keys']),
            'transport' => new FakeTransport([]),
            'clock_tolerance' => $vectors['clock_tolerance'],
        ]);
        $options = ['now' => $vector['now']];
        if (isset($vector['identifier'])) {
            $options['identifier'] = $vector['identifier'];
        }
        try {
            $file = $client->verifyLicenseFile($vector['file'], $options);
        } catch (LicensingException $refusal) {
            $this->assertSame('refuse', $vector['expect'], $vector['why'] . ': ' . $refusal->getMessage());
            $this->assertSame($vector['code'], $refusal->getErrorCode(), $refusal->getMessage());
            $this->assertTrue($refusal->isLicenseProblem());
            return;
        }
        $this->assertSame('accept', $vector['expect'], $vector['why'] . ': it was accepted');
        $this->assertSame($vector['product_id'], $file->product_id);
        $this->assertSame('example.com', $file->identifier);
        $this->assertTrue($file->valid);
        $this->assertTrue($file->identifier_activated);
        $this->assertFalse($file->isStale());
    }
}
