"""ValidatingWebhookConfigurations (``admissionregistration.k8s.io/v1``): the generation the shared
webhook configuration strategy counts (:mod:`.webhookconfiguration`). The fake calls no webhook."""

from fake_apiserver._registry.admissionregistration.webhookconfiguration import WebhookConfigurationStrategy
from fake_apiserver._registry.generic import KindRules

__all__ = ["KIND"]

KIND = KindRules(group="admissionregistration.k8s.io", kind="ValidatingWebhookConfiguration",
                 strategy=lambda spec, options: WebhookConfigurationStrategy(spec))
"""The ValidatingWebhookConfiguration's declaration."""
