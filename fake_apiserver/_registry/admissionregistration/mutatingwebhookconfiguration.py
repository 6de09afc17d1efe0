"""MutatingWebhookConfigurations (``admissionregistration.k8s.io/v1``): the generation the shared
webhook configuration strategy counts (:mod:`.webhookconfiguration`). The fake calls no webhook.

Its Table's cells are the shared :func:`~.webhookconfiguration.print_webhook_configuration`."""

from fake_apiserver._registry.admissionregistration.webhookconfiguration import (
    WebhookConfigurationStrategy,
    print_webhook_configuration,
)
from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND"]

KIND = KindRules(group="admissionregistration.k8s.io", kind="MutatingWebhookConfiguration",
                 strategy=lambda spec, options: WebhookConfigurationStrategy(spec),
                 printer=print_webhook_configuration)
"""The MutatingWebhookConfiguration's declaration."""
