<?php

namespace Licensing;

use Licensing\Result\Activation;
use Licensing\Result\LicenseFile;
use Licensing\Result\UpdateInfo;
use Licensing\Result\Validation;
use Licensing\Calls\Exchange;
use Licensing\Calls\Operation;
use Licensing\Calls\Retries;
use Licensing\Calls\Settings;
use Licensing\Validation\OfflineGrace;
use Licensing\Validation\SafeCache;
use Licensing\Validation\SignedTime;
use Licensing\Verification\LicenseFileVerifier;

/**
 * The PHP client of the Licensing Service Interface, for WordPress plugins and Joomla
 * extensions; it behaves as the TypeScript client (libs/client) does. Every call returns a typed
 * result or throws one `LicensingException`. With `keys` pinned, every answer is verified before
 * it is read; with a `cache` too, validate answers from the last verified validation while the
 * server cannot answer (the offline grace). README.md documents the options and rules.
 */
class LicensingClient
{
    /** @var Settings */
    private $settings;
    /** @var Retries */
    private $retries;
    /** @var SignedTime */
    private $signedTime;
    /** @var OfflineGrace|null */
    private $grace = null;

    /**
     * @param string $storeUrl the store root URL, with or without a trailing slash
     * @param int $productId the product this software is, sent with every call
     * @param array<string, mixed> $options timeout, keys, cache, offline_grace, clock_tolerance,
     *   transport, headers, clock (README.md)
     * @throws \InvalidArgumentException for a wrong URL, product id or option
     */
    public function __construct(string $storeUrl, int $productId, array $options = [])
    {
        $this->settings = new Settings($storeUrl, $productId, $options);
        $cache = $this->settings->cache !== null ? new SafeCache($this->settings->cache) : null;
        $this->signedTime = new SignedTime($cache);
        $this->retries = new Retries(new Exchange($this->settings, $this->signedTime), $this->settings->timeout);
        if ($cache !== null && $this->settings->keys !== null && $this->settings->offlineGrace > 0) {
            $this->grace = new OfflineGrace(
                $cache,
                $this->settings->keys,
                $this->signedTime,
                $this->settings->offlineGrace,
                $this->settings->clockTolerance
            );
        }
    }

    /** `{store root}/api/index.php/v1/licensing` (spec 9). */
    public function apiBase(): string
    {
        return $this->settings->apiBase;
    }

    /**
     * Spec 4.1: registers `$identifier` on the license. Idempotent, so retried after a transient
     * failure. Keep the answer's `identifier` (normalised by the server) to deactivate with.
     *
     * @throws LicensingException e.g. LICENSE_INVALID, LICENSE_EXPIRED, ACTIVATION_LIMIT_REACHED
     */
    public function activate(string $licenseKey, string $identifier): Activation
    {
        $fields = ['license_key' => $licenseKey, 'identifier' => $identifier];
        return new Activation($this->data($this->form('licenses/activate', $fields, true)));
    }

    /**
     * Spec 4.2: whether the license is usable, and whether `$identifier` (if given) is activated
     * on it. An unknown, expired or suspended key is an answer (`valid` false), not an exception.
     * `$entitlements`, codes to ask about, are sent as `entitlements=a,b`.
     *
     * @param string[] $entitlements
     * @throws LicensingException when there is no answer and no verified one within the grace
     */
    public function validate(string $licenseKey, ?string $identifier = null, array $entitlements = []): Validation
    {
        $codes = implode(',', array_map('strval', $entitlements));
        $fields = ['license_key' => $licenseKey, 'identifier' => $identifier, 'entitlements' => $codes];
        $operation = $this->form('licenses/validate', $fields, true);
        if ($this->grace === null) {
            return new Validation($this->data($operation));
        }
        $entry = OfflineGrace::entry($this->settings->apiBase, $this->settings->productId, $licenseKey, $identifier, $codes);
        try {
            $outcome = $this->retries->run($operation);
        } catch (LicensingException $failure) {
            return $this->offline($entry, $operation, $failure);
        }
        if ($outcome->signed !== null && ($outcome->failure === null || $outcome->failure->isLicenseProblem())) {
            // A verified verdict replaces the last one, good or not: a revoked license stays revoked.
            $this->grace->keep($entry, $outcome->signed);
        }
        if ($outcome->failure !== null) {
            return $this->offline($entry, $operation, $outcome->failure);
        }
        $data = $outcome->data();
        return new Validation($data);
    }

    /**
     * Spec 4.3: frees the activation of `$identifier`. Not retried: a second try after a lost
     * answer would be refused for an activation already removed.
     *
     * @throws LicensingException
     */
    public function deactivate(string $licenseKey, string $identifier): Activation
    {
        $fields = ['license_key' => $licenseKey, 'identifier' => $identifier];
        return new Activation($this->data($this->form('licenses/deactivate', $fields, false)));
    }

    /**
     * Spec 4.4: the latest published version; the key (optional: '' sends none) scopes it to the
     * license's plan and adds its state.
     *
     * @param array<string, mixed> $options `version` (the installed one), `channel` (stable, rc,
     *   beta, alpha, dev), `identifier` (the one the key is used on: staged rollouts)
     * @throws LicensingException
     */
    public function checkForUpdate(string $licenseKey, array $options = []): UpdateInfo
    {
        self::onlyOptions($options, ['version', 'channel', 'identifier']);
        $channel = isset($options['channel']) ? (string) $options['channel'] : null;
        $query = [
            'license_key' => $licenseKey,
            'identifier' => isset($options['identifier']) ? (string) $options['identifier'] : null,
            'channel' => $channel === 'stable' ? null : $channel,
            'version' => isset($options['version']) ? (string) $options['version'] : null,
        ];
        $url = $this->settings->apiBase . '/updates/' . $this->settings->productId;
        return new UpdateInfo($this->data(Operation::get($url, $query, true)));
    }

    /**
     * Spec 4.5: the URL of the package download, with the key as `dlid`. Fetch it with
     * `Accept: application/json` and save the body only on HTTP 200; otherwise it is a JSON error.
     *
     * @param array<string, mixed> $options `identifier` (an activated one), `version`
     */
    public function downloadUrl(string $licenseKey, array $options = []): string
    {
        self::onlyOptions($options, ['version', 'identifier']);
        $query = [
            'dlid' => $licenseKey,
            'identifier' => isset($options['identifier']) ? (string) $options['identifier'] : null,
            'version' => isset($options['version']) ? (string) $options['version'] : null,
        ];
        $encoded = Operation::encode($query, PHP_QUERY_RFC3986);
        $url = $this->settings->apiBase . '/downloads/' . $this->settings->productId;
        return $encoded === '' ? $url : $url . '?' . $encoded;
    }

    /**
     * Checks a license file (`POST /licenses/checkout`'s `license_file`) offline, against the
     * pinned keys only.
     *
     * @param array<string, mixed> $options `identifier` (compared exactly with the file's
     *   normalised one), `now` (seconds since the epoch; default the client's clock)
     * @throws LicensingException SIGNATURE_INVALID, CLOCK_TAMPERED, PRODUCT_MISMATCH,
     *   IDENTIFIER_MISMATCH, LICENSE_FILE_EXPIRED
     */
    public function verifyLicenseFile(string $licenseFile, array $options = []): LicenseFile
    {
        self::onlyOptions($options, ['identifier', 'now']);
        $now = isset($options['now']) ? (float) $options['now'] : $this->settings->now();
        return LicenseFileVerifier::verify(
            $licenseFile,
            $this->settings->keys,
            $this->settings->productId,
            isset($options['identifier']) ? (string) $options['identifier'] : null,
            $now,
            $this->settings->clockTolerance,
            $this->signedTime
        );
    }

    /**
     * @param array<string, string|null> $fields
     */
    private function form(string $path, array $fields, bool $repeatable): Operation
    {
        return Operation::form($this->settings->apiBase . '/' . $path, $fields, $this->settings->productId, $repeatable);
    }

    /** @return array<string, mixed> */
    private function data(Operation $operation): array
    {
        return $this->retries->run($operation)->data();
    }

    /**
     * The offline grace's answer to a transient failure; any other failure is thrown.
     *
     * @throws LicensingException
     */
    private function offline(string $entry, Operation $operation, LicensingException $failure): Validation
    {
        if ($this->grace === null || !$failure->isTransient()) {
            throw $failure;
        }
        return $this->grace->answer($entry, $operation, $failure, $this->settings->now());
    }

    /**
     * @param array<string, mixed> $options
     * @param string[] $names
     */
    private static function onlyOptions(array $options, array $names): void
    {
        foreach (array_keys($options) as $name) {
            if (!in_array($name, $names, true)) {
                throw new \InvalidArgumentException(sprintf('Unknown option "%s"; the options are: %s.', $name, implode(', ', $names)));
            }
        }
    }
}
