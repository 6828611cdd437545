<?php

namespace Licensing\Validation;

use Licensing\LicensingException;
use Licensing\Result\Validation;
use Licensing\Calls\Envelope;
use Licensing\Calls\Operation;
use Licensing\Http\Response;
use Licensing\Verification\AnswerVerifier;
use Licensing\Verification\PinnedKeys;
use Licensing\Verification\SignedAnswer;

/**
 * The offline grace, as libs/client/src/validation/offline-grace.ts keeps it: while the server
 * cannot answer, validate answers from the last verified validation of the same key,
 * identifier, product and entitlements, checked again as it was signed.
 */
final class OfflineGrace
{
    /** @var SafeCache */
    private $cache;
    /** @var PinnedKeys */
    private $keys;
    /** @var SignedTime */
    private $signedTime;
    /** @var float seconds */
    private $grace;
    /** @var float seconds */
    private $tolerance;

    public function __construct(SafeCache $cache, PinnedKeys $keys, SignedTime $signedTime, float $grace, float $tolerance)
    {
        $this->cache = $cache;
        $this->keys = $keys;
        $this->signedTime = $signedTime;
        $this->grace = $grace;
        $this->tolerance = $tolerance;
    }

    /** The cache entry of a validation: a digest, so the cache does not hold the key in its names. */
    public static function entry(string $apiBase, int $productId, string $key, ?string $identifier, string $entitlements): string
    {
        $fields = [$apiBase, (string) $productId, $key, $identifier === null ? '' : $identifier];
        if ($entitlements !== '') {
            $fields[] = $entitlements;
        }
        return SafeCache::PREFIX . 'validate:' . hash('sha256', implode("\n", $fields));
    }

    /** Keeps a verified verdict, good or not: a revoked license stays revoked. */
    public function keep(string $entry, SignedAnswer $answer): void
    {
        $this->cache->write($entry, $answer->toJson());
    }

    /**
     * The last verified answer standing in for `$failure`, or `$failure` when there is none
     * within the grace.
     *
     * @throws LicensingException `$failure`, or CLOCK_TAMPERED
     */
    public function answer(string $entry, Operation $operation, LicensingException $failure, float $now): Validation
    {
        $stored = $this->cache->read($entry);
        $answer = $stored === null ? null : SignedAnswer::fromJson($stored);
        if ($answer === null) {
            throw $failure;
        }
        // Checked again: the cache is the caller's, and only what the server signed is trusted.
        $created = AnswerVerifier::verify($this->keys, $answer, $now, $this->tolerance, false);
        if (!is_int($created)) {
            throw $failure;
        }
        try {
            $data = Envelope::data(new Response($answer->status, [], $answer->body));
        } catch (LicensingException $refusal) {
            throw $failure;
        }
        $previous = new Validation($data);
        if ($previous->valid !== true || $previous->identifier_activated === false) {
            throw $failure;
        }
        // The signature binds the answer to the fields its request sent: they must be this call's.
        $digest = AnswerVerifier::contentDigest($operation->body === null ? '' : $operation->body);
        if ($answer->url !== $operation->url || $answer->requestDigest !== $digest) {
            throw $failure;
        }
        $latest = max($this->signedTime->get(), (float) $created);
        if ($now < $latest - $this->tolerance) {
            throw self::clockTampered($now, $latest);
        }
        if ($now - $created > $this->grace) {
            throw $failure;
        }
        return new Validation($data, AnswerVerifier::iso((float) $created));
    }

    /** `CLOCK_TAMPERED`: the device's clock is behind `$latest`, a time the server vouched for. */
    public static function clockTampered(float $now, float $latest): LicensingException
    {
        return new LicensingException('CLOCK_TAMPERED', sprintf(
            'This device\'s clock (%s) is behind a time the license server vouched for (%s): it has been set back, so offline checks cannot be trusted.',
            AnswerVerifier::iso($now),
            AnswerVerifier::iso($latest)
        ));
    }
}
