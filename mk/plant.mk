# SPDX-License-Identifier: GPL-2.0
# The sim card's benchmark plant against the continuous G(s) of the RTHS
# benchmark (Documentation/sim-card.rst, "The plant"): "make
# plant-response" prints the largest frequency-response errors over
# 0.5-30 Hz as TAP and checks them against the discretisation tolerance.

PLANT_RESPONSE := $(O)/plain/tests/plant/plant-response
$(PLANT_RESPONSE): $(O)/plain/tests/plant/plant-response.o \
		$(O)/plain/librths.a
	$(CC) -o $@ $^ $(LIBRTHS_LIBS)

.PHONY: plant-response
plant-response: $(PLANT_RESPONSE)
	@mkdir -p $(O)/results
	@$(PLANT_RESPONSE) > $(O)/results/plant-response.tap; rc=$$?; \
		cat $(O)/results/plant-response.tap; exit $$rc

CHECK_PARTS += plant-response

# The design the guest's rths_plant_test.sh compares the card with.
PLANT_SECTIONS := $(O)/plain/tests/plant/plant-sections
$(PLANT_SECTIONS): $(O)/plain/tests/plant/plant-sections.o \
		$(O)/plain/librths.a
	$(CC) -o $@ $^ $(LIBRTHS_LIBS)
vm-check: $(PLANT_SECTIONS)

# The benchmark's reference structure (examples/benchmark): J1..J9 under
# El Centro at 40 % and a synthetic record, without compensation, with
# polynomial and with ATS, nominal and perturbed plant; offline, twelve
# runs of rths-run, about three minutes on a loaded machine.
.PHONY: example-benchmark
example-benchmark: tools
	@mkdir -p $(O)/example-benchmark
	examples/benchmark/run-all.sh $(O)/plain/tools/rths-run \
		$(O)/example-benchmark | tee $(O)/example-benchmark/j1-j9.txt
