/* The device table as data (analyzer/data/devices.json, compiled in by base/devc.c): every device
 * answers to its own id, display name and aliases, variants are picked by memory size, the
 * default is one Relax targets. Built a second time against tests/audit/devices_extra.json
 * (PD_DEVICES_FIXTURE): a table with devices no real one has works with no C changed. */
#include <math.h>

#include "base/device.h"
#include "harness.h"

static void every_device_finds_itself(void) {
  CHECK(pd_device_count() > 0);
  for (size_t i = 0; i < pd_device_count(); i++) {
    const pd_device *d = pd_device_at(i);
    pd_device custom;
    const pd_device *by_id = pd_device_find(d->id, &custom);
    CHECK(by_id != NULL);
    if (by_id) CHECK_STR(by_id->id, d->id);
    CHECK(d->source && *d->source);
    CHECK((d->link != NULL) == !isnan(d->link_gbps));
  }
  CHECK(pd_device_at(pd_device_count()) == NULL);
  const pd_device *def = pd_device_default();
  CHECK(def && !def->trace_only && !isnan(def->usable_gib));
}

#ifdef PD_DEVICES_FIXTURE
static void fixture_table(void) {
  CHECK_INT(pd_device_count(), 3);
  CHECK_STR(pd_device_default()->id, "T9-48G");
  const pd_device *d = pd_device_find("t9 96gb", NULL);
  CHECK(d && !strcmp(d->id, "T9-96G") && d->usable_gib == 94.0 && d->variant_gb == 96);
  d = pd_device_find("T9", NULL); /* the family alone: its first variant */
  CHECK(d && !strcmp(d->id, "T9-48G") && d->bf16_tflops == 400 && !strcmp(d->link, "TLink 1"));
  CHECK(pd_device_find("T90", NULL) == NULL);
  pd_device custom;
  d = pd_device_find("quux-32G", &custom); /* an alias, with the size a name states */
  CHECK(d == &custom && !strcmp(custom.id, "Q7") && custom.usable_gib == 31.0 && custom.cls == PD_DEV_NPU);
  d = pd_device_find("quux", &custom);
  CHECK(d && !strcmp(d->id, "Q7") && isnan(d->usable_gib));
  CHECK(pd_device_find("H20", NULL) == NULL); /* the shipped table is not in this build */
}
#else
static void shipped_table(void) {
  const char *names[][2] = {{"npu", "Ascend-910C"},   {"Ascend 910B", "Ascend-910B"}, {"klx", "P800"},
                            {"kunlunxin-p800", "P800"}, {"H20 141GB", "H20-141G"},  {"a100", "A100-80G"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const pd_device *d = pd_device_find(names[i][0], NULL);
    CHECK(d != NULL);
    if (d) CHECK_STR(d->id, names[i][1]);
  }
  CHECK_STR(pd_device_default()->id, "H20-96G");
}
#endif

int main(void) {
  every_device_finds_itself();
#ifdef PD_DEVICES_FIXTURE
  fixture_table();
#else
  shipped_table();
#endif
  return pd_test_exit("audit_devices");
}
