# The one-bay frame of OneBayFrame.tcl in OpenSeesPy, without OpenFresco:
# both columns are genericClient elements, served by rths-site
# (examples/opensees/site.json): "left-column" on port 8090 and
# "right-column-element" on port 8093.  Documentation/opensees.rst walks
# through it.  Run: python3 OneBayFrame.py (after pip's openseespy).
import openseespy.opensees as ops

ops.wipe()
ops.model('basic', '-ndm', 2, '-ndf', 2)
ops.node(1, 0.0, 0.0)
ops.node(2, 100.0, 0.0)
ops.node(3, 0.0, 54.0, '-mass', 0.04, 0.04)
ops.node(4, 100.0, 54.0, '-mass', 0.02, 0.02)
ops.fix(1, 1, 1)
ops.fix(2, 1, 1)
ops.fix(3, 0, 1)
ops.fix(4, 0, 1)
ops.uniaxialMaterial('Elastic', 3, 2.0 * 100.0 / 1.0)
ops.element('truss', 3, 3, 4, 1.0, 3)

# rths-site answers each column's force without C v: GenericClient adds
# its damping matrix times v (and its mass times a) itself.
ops.element('genericClient', 1, '-node', 1, 3, '-dof', 1, '-dof', 1,
            '-server', 8090, '127.0.0.1')
ops.element('genericClient', 2, '-node', 2, 4, '-dof', 1, '-dof', 1,
            '-server', 8093, '127.0.0.1')

dt = 0.02
ops.timeSeries('Path', 1, '-filePath', 'elcentro.txt', '-dt', dt,
               '-factor', 386.1)
ops.pattern('UniformExcitation', 1, 1, '-accel', 1)
ops.rayleigh(1.010017396536, 0.0, 0.0, 0.0)

ops.system('BandGeneral')
ops.numberer('Plain')
ops.constraints('Plain')
ops.test('NormDispIncr', 1.0e-12, 25)
# both columns are numerical on the site: Newton iterations are fine
ops.integrator('Newmark', 0.5, 0.25)
ops.algorithm('Newton')
ops.analysis('Transient')
ops.recorder('Node', '-file', 'Node_Dsp_py.out', '-time', '-node', 3, 4,
             '-dof', 1, 'disp')

for i in range(1560):
    if ops.analyze(1, dt) != 0:
        print('analysis failed at step', i)
        break
ops.wipe()
